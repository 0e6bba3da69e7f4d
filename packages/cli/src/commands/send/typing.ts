import { command, type CommandFactory } from "../util.js"
import { keyOption, sendOptions } from "./common.js"

export const sendTyping: CommandFactory = (ctx) =>
  sendOptions(command("typing", "Show a typing indicator")).action(async (o) => {
    const client = await ctx.client()
    const result = await client.messages.sendTyping({ channel_id: o.channel as number, to: o.to as string }, keyOption(o))
    // A typing indicator creates no message, so there is no message id to print (the API answers "").
    ctx.out.result(result, () =>
      ctx.out.line(`${ctx.out.c.green("✓")} Showing a typing indicator to ${o.to as string} on channel ${result.channel_id}`))
  })
