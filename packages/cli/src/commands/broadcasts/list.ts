import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { command, defined, int, type CommandFactory } from "../util.js"
import { columns } from "./common.js"

export const broadcastsList: CommandFactory = (ctx) =>
  pageOptions(
    command("list", "List broadcasts, newest first")
      .option("--channel <id>", "only broadcasts of this channel", int)
      .option("--status <status>", "only broadcasts in this status (draft, scheduled, sending, completed, failed)")
      .option("--limit <n>", "page size (1..200)", int)
  ).action(async (o) => {
    const client = await ctx.client()
    const params = { ...defined({ channel_id: o.channel as number | undefined, status: o.status as string | undefined, limit: o.limit as number | undefined }), ...cursors(o) }
    const listed = await loadPages(ctx, client.broadcasts.list(params), o.all === true)
    ctx.out.result({ data: listed.data, has_more: listed.has_more, next_cursor: listed.next_cursor }, () => {
      ctx.out.table(listed.data, columns(ctx), "No broadcasts yet: `platform broadcasts create --name ... --channel <id> --template ... --language en_US`.")
      moreHint(ctx, "broadcasts", listed, o)
    })
  })
