import { Option } from "commander"
import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { command, defined, int, type CommandFactory } from "../util.js"
import { messageColumns } from "./common.js"

export const messagesList: CommandFactory = (ctx) =>
  pageOptions(
    command("list", "List stored messages (sent and received), newest first")
      .option("--channel <id>", "only this channel", int)
      .option("--conversation <id>", "only this conversation", int)
      .option("--contact <id>", "only this contact", int)
      .option("--peer <id>", "only messages with this peer (phone number or social user id)")
      .addOption(new Option("--direction <direction>", "only this direction").choices(["inbound", "outbound"]))
      .option("--type <type>", "only this message type (text, image, template, ...)")
      .option("--status <status>", "only outbound messages in this status (sent, delivered, read, failed)")
      .option("--since <date-time>", "only messages created at or after this ISO 8601 date-time")
      .option("--until <date-time>", "only messages created before this ISO 8601 date-time")
      .option("--limit <n>", "page size (1..200)", int)
  ).action(async (o) => {
    const client = await ctx.client()
    const params = defined({
      channel_id: o.channel as number | undefined,
      conversation_id: o.conversation as number | undefined,
      contact_id: o.contact as number | undefined,
      peer_id: o.peer as string | undefined,
      direction: o.direction as string | undefined,
      type: o.type as string | undefined,
      status: o.status as string | undefined,
      since: o.since as string | undefined,
      until: o.until as string | undefined,
      limit: o.limit as number | undefined,
      ...cursors(o)
    })
    const { first: _first, ...listed } = await loadPages(ctx, client.messages.list(params), o.all === true)
    ctx.out.result(listed, () => {
      ctx.out.table(listed.data, messageColumns(ctx), "No messages.")
      moreHint(ctx, "messages", listed, o)
    })
  })
