import type { Platform, RequestOptions, SendResult } from "@platform/sdk"
import { command, json, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

/**
 * A send whose one option is the type's object as JSON, passed through to the upstream
 * (interactive, contacts, catalog): the CLI does not model what the API validates.
 */
const passthrough = (
  name: string,
  description: string,
  field: "interactive" | "contacts",
  help: string,
  send: (client: Platform, body: never, options: RequestOptions) => Promise<SendResult>
): CommandFactory =>
(ctx) =>
  sendOptions(command(name, description))
    .requiredOption(`--${field} <json>`, help, json)
    .action(async (o) => {
      const client = await ctx.client()
      const body = { channel_id: o.channel as number, to: o.to as string, [field]: o[field] }
      printSent(ctx, await ctx.out.spin("Sending", send(client, body as never, keyOption(o))))
    })

export const sendInteractive = passthrough(
  "interactive",
  "Send an interactive message (buttons, lists, flows)",
  "interactive",
  "the interactive object as JSON, passed through to the upstream",
  (client, body, options) => client.messages.sendInteractive(body, options)
)

export const sendContacts = passthrough(
  "contacts",
  "Send one or more contact cards",
  "contacts",
  "the contact cards as a JSON array",
  (client, body, options) => client.messages.sendContacts(body, options)
)

export const sendCatalog = passthrough(
  "catalog",
  "Send a catalog message (chat channels)",
  "interactive",
  "the catalog's interactive object as JSON, passed through to the upstream",
  (client, body, options) => client.messages.sendCatalog(body, options)
)
