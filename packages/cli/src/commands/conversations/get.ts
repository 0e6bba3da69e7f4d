import { command, int, type CommandFactory } from "../util.js"

export const conversationsGet: CommandFactory = (ctx) =>
  command("get", "Show a conversation")
    .argument("<conversation_id>", "conversation id", int)
    .action(async (id: number) => {
      const conversation = await (await ctx.client()).conversations.retrieve(id)
      ctx.out.result(conversation, () => ctx.out.fields(Object.entries(conversation)))
    })
