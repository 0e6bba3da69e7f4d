import { command, int, type CommandFactory } from "../util.js"

export const templatesSync: CommandFactory = (ctx) =>
  command("sync", "Import the channel's templates from the upstream (safe to repeat)")
    .requiredOption("--channel <id>", "the chat channel", int)
    .action(async (o) => {
      const r = await ctx.out.spin("Syncing templates", (await ctx.client()).templates.sync({ channel_id: o.channel as number }))
      ctx.out.result(r, () =>
        ctx.out.line(`${ctx.out.c.green("✓")} ${r.total} upstream template(s): ${r.imported} imported, ${r.updated} updated, ${r.skipped} skipped`))
    })
