import { command, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendTyping: CommandFactory = (ctx) =>
  sendOptions(command("typing", "Show a typing indicator")).action(async (o) => {
    const client = await ctx.client()
    printSent(ctx, await client.messages.sendTyping({ channel_id: o.channel as number, to: o.to as string }, keyOption(o)))
  })
