import { command, int, type CommandFactory } from "../util.js"

export const templatesDelete: CommandFactory = (ctx) =>
  command("delete", "Delete a template here and upstream")
    .argument("<id>", "template id", int)
    .action(async (id: number) => {
      await (await ctx.client()).templates.delete(id)
      ctx.out.result({ id, deleted: true }, () => ctx.out.line(`${ctx.out.c.green("✓")} Deleted template ${id}`))
    })
