import { command, json, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendTemplate: CommandFactory = (ctx) =>
  sendOptions(command("template", "Send an approved template (chat channels)"))
    .requiredOption("--name <template_name>", "template name")
    .requiredOption("--language <code>", "language code, e.g. en_US")
    .option("--components <json>", "runtime components as a JSON array", json)
    .action(async (o) => {
      const client = await ctx.client()
      const body = {
        channel_id: o.channel as number,
        to: o.to as string,
        template_name: o.name as string,
        language_code: o.language as string,
        ...(o.components !== undefined ? { components: o.components as never } : {})
      }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendTemplate(body, keyOption(o))))
    })
