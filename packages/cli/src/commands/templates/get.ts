import { command, int, type CommandFactory } from "../util.js"
import { printTemplate } from "./common.js"

export const templatesGet: CommandFactory = (ctx) =>
  command("get", "Show a template")
    .argument("<id>", "template id", int)
    .action(async (id: number) => printTemplate(ctx, await (await ctx.client()).templates.retrieve(id)))
