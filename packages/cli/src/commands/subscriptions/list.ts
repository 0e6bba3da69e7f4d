import { command, int, type CommandFactory } from "../util.js"
import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { columns } from "./common.js"

export const subscriptionsList: CommandFactory = (ctx) =>
  pageOptions(command("list", "List webhook subscriptions, newest first").option("--limit <n>", "page size (1..200)", int)).action(async (o) => {
    const client = await ctx.client()
    const params = { ...(o.limit !== undefined ? { limit: o.limit as number } : {}), ...cursors(o) }
    const listed = await loadPages(ctx, client.webhooks.subscriptions.list(params), o.all === true)
    ctx.out.result({ data: listed.data, has_more: listed.has_more, next_cursor: listed.next_cursor }, () => {
      ctx.out.table(listed.data, columns(ctx), "No subscriptions yet: `platform subscriptions create --url https://...`.")
      moreHint(ctx, "subscriptions", listed, o)
    })
  })
