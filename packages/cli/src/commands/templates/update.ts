import type { TemplateUpdateParams } from "@platform/sdk"
import { command, int, type CommandFactory } from "../util.js"
import { bodyFrom, bodyOptions, printTemplate } from "./common.js"

export const templatesUpdate: CommandFactory = (ctx) =>
  bodyOptions(command("update", "Edit the given fields of a template and re-submit it upstream"))
    .argument("<id>", "template id", int)
    .action(async (id: number, o) => {
      const t = await (await ctx.client()).templates.update(id, bodyFrom(o) as TemplateUpdateParams)
      printTemplate(ctx, t, t.meta_status === "rejected" ? "The upstream refused the edit of" : "Updated")
    })
