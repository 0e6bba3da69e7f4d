import type { TemplateCreateParams } from "@platform/sdk"
import { command, int, type CommandFactory } from "../util.js"
import { bodyFrom, bodyOptions, printTemplate } from "./common.js"

export const templatesCreate: CommandFactory = (ctx) =>
  bodyOptions(
    command("create", "Create a template and submit it upstream (from flags, a JSON --file, or both)")
      .option("--channel <id>", "the chat channel it belongs to", int)
      .option("--name <name>", "template name: lower case letters, digits and underscores")
      .option("--language <code>", "language code, e.g. en_US")
  ).action(async (o) => {
    const body = { ...bodyFrom(o), ...(o.channel !== undefined ? { channel_id: o.channel } : {}), ...(o.name !== undefined ? { name: o.name } : {}), ...(o.language !== undefined ? { language_code: o.language } : {}) }
    printTemplate(ctx, await (await ctx.client()).templates.create(body as TemplateCreateParams), "Created")
  })
