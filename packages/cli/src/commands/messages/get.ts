import { command, int, type CommandFactory } from "../util.js"

export const messagesGet: CommandFactory = (ctx) =>
  command("get", "Show a stored message")
    .argument("<id>", "message id (the platform's id, as `messages list` shows it)", int)
    .action(async (id: number) => {
      const message = await (await ctx.client()).messages.retrieve(id)
      ctx.out.result(message, () => ctx.out.fields(Object.entries(message)))
    })
