import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { command, defined, int, type CommandFactory } from "../util.js"

export const contactsList: CommandFactory = (ctx) =>
  pageOptions(
    command("list", "List contacts, newest first")
      .option("--channel <id>", "only this channel", int)
      .option("--query <prefix>", "only contacts whose name, username or phone starts with this (any case)")
      .option("--limit <n>", "page size (1..200)", int)
  ).action(async (o) => {
    const client = await ctx.client()
    const params = defined({
      channel_id: o.channel as number | undefined,
      q: o.query as string | undefined,
      limit: o.limit as number | undefined,
      ...cursors(o)
    })
    const { first: _first, ...listed } = await loadPages(ctx, client.contacts.list(params), o.all === true)
    ctx.out.result(listed, () => {
      ctx.out.table(
        listed.data,
        [
          { header: "id", value: (k) => String(k.id) },
          { header: "channel", value: (k) => String(k.platform_channel_id) },
          { header: "name", value: (k) => k.display_name ?? k.profile_name ?? "-" },
          { header: "phone / user", value: (k) => k.phone ?? k.username ?? k.social_id ?? "-" },
          { header: "last seen", value: (k) => k.last_seen_at }
        ],
        "No contacts."
      )
      moreHint(ctx, "contacts", listed, o)
    })
  })
