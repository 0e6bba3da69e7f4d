import { command, json, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendContacts: CommandFactory = (ctx) =>
  sendOptions(command("contacts", "Send one or more contact cards"))
    .requiredOption("--contacts <json>", "the contact cards as a JSON array", json)
    .action(async (o) => {
      const client = await ctx.client()
      const body = { channel_id: o.channel as number, to: o.to as string, contacts: o.contacts as never }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendContacts(body, keyOption(o))))
    })
