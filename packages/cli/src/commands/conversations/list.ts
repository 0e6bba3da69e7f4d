import { Option } from "commander"
import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { command, defined, int, type CommandFactory } from "../util.js"
import { conversationColumns } from "./common.js"

export const conversationsList: CommandFactory = (ctx) =>
  pageOptions(
    command("list", "List conversations, newest first")
      .option("--channel <id>", "only this channel", int)
      .addOption(new Option("--status <status>", "only this status").choices(["active", "ended"]))
      .option("--peer <id>", "only the conversation with this peer (phone number or social user id)")
      .option("--limit <n>", "page size (1..200)", int)
  ).action(async (o) => {
    const client = await ctx.client()
    const params = defined({
      channel_id: o.channel as number | undefined,
      status: o.status as string | undefined,
      peer_id: o.peer as string | undefined,
      limit: o.limit as number | undefined,
      ...cursors(o)
    })
    const { first: _first, ...listed } = await loadPages(ctx, client.conversations.list(params), o.all === true)
    ctx.out.result(listed, () => {
      ctx.out.table(listed.data, conversationColumns(ctx), "No conversations.")
      moreHint(ctx, "conversations", listed, o)
    })
  })
