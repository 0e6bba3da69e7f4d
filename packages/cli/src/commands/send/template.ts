import { usage } from "../../context.js"
import { command, json, list, type CommandFactory } from "../util.js"
import { keyOption, printSent, sendOptions } from "./common.js"

export const sendTemplate: CommandFactory = (ctx) =>
  sendOptions(command("template", "Send an approved template (chat channels)"))
    .requiredOption("--name <template_name>", "template name")
    .requiredOption("--language <code>", "language code, e.g. en_US")
    .option("--variables <values>", "values of the body placeholders ({{1}}, {{2}}, ...), comma-separated, in order", list)
    .option("--components <json>", "runtime components as a JSON array", json)
    .action(async (o) => {
      const variables = o.variables as ReadonlyArray<string> | undefined
      const given = o.components as ReadonlyArray<{ type?: unknown }> | undefined
      if (variables !== undefined && given?.some((c) => c.type === "body")) {
        throw usage("give the body's values either with --variables or as a body component in --components, not both")
      }
      const body = variables === undefined
        ? []
        : [{ type: "body", parameters: variables.map((text) => ({ type: "text", text })) }]
      const components = given === undefined && variables === undefined ? undefined : [...(given ?? []), ...body]
      const client = await ctx.client()
      const request = {
        channel_id: o.channel as number,
        to: o.to as string,
        template_name: o.name as string,
        language_code: o.language as string,
        ...(components !== undefined ? { components: components as never } : {})
      }
      printSent(ctx, await ctx.out.spin("Sending", client.messages.sendTemplate(request, keyOption(o))))
    })
