import { Option } from "commander"
import { command, defined, int, type CommandFactory } from "../util.js"
import { columns } from "./common.js"

export const templatesList: CommandFactory = (ctx) =>
  command("list", "List templates, newest first")
    .option("--channel <id>", "only templates of this channel", int)
    .option("--name <name>", "only templates with this name")
    .option("--language <code>", "only templates in this language")
    .option("--category <category>", "only templates of this category (utility, marketing, authentication)")
    .option("--status <status>", "only templates in this upstream status (pending, approved, rejected)")
    .addOption(new Option("--active", "only active templates").conflicts("inactive"))
    .option("--inactive", "only inactive templates")
    .action(async (o) => {
      const params = defined({
        channel_id: o.channel as number | undefined,
        name: o.name as string | undefined,
        language_code: o.language as string | undefined,
        category: o.category as string | undefined,
        status: o.status as string | undefined,
        is_active: o.active === true ? true : o.inactive === true ? false : undefined
      })
      const templates = await ctx.out.spin("Loading templates", (await ctx.client()).templates.list(params))
      ctx.out.result(templates, () =>
        ctx.out.table(templates, columns(ctx), "No templates: create one with `platform templates create` or import them with `platform templates sync --channel <id>`."))
    })
