import { command, json, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendCatalog: CommandFactory = (ctx) =>
  sendOptions(command("catalog", "Send a catalog message (chat channels)"))
    .requiredOption("--interactive <json>", "the catalog's interactive object as JSON, passed through to the upstream", json)
    .action(async (o) => {
      const client = await ctx.client()
      const body = { channel_id: o.channel as number, to: o.to as string, interactive: o.interactive as never }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendCatalog(body, keyOption(o))))
    })
