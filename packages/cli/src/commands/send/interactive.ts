import { command, json, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendInteractive: CommandFactory = (ctx) =>
  sendOptions(command("interactive", "Send an interactive message (buttons, lists, flows)"))
    .requiredOption("--interactive <json>", "the interactive object as JSON, passed through to the upstream", json)
    .action(async (o) => {
      const client = await ctx.client()
      const body = { channel_id: o.channel as number, to: o.to as string, interactive: o.interactive as never }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendInteractive(body, keyOption(o))))
    })
