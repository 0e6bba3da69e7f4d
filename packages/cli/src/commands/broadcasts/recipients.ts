import type { BroadcastRecipientCounts } from "@platform/sdk"
import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { command, defined, int, type CommandFactory } from "../util.js"
import { recipientColumns } from "./common.js"

export const broadcastsRecipients: CommandFactory = (ctx) =>
  pageOptions(
    command("recipients", "List a broadcast's recipients with their state, and the counts per state")
      .argument("<id>", "broadcast id", int)
      .option("--status <state>", "only recipients in this state (pending, sent, delivered, read, responded, failed)")
      .option("--limit <n>", "page size (1..200)", int)
  ).addHelpText("after", "With --json the list object also carries counts.\n")
    .action(async (id: number, o) => {
      const client = await ctx.client()
      const params = { ...defined({ status: o.status as never, limit: o.limit as number | undefined }), ...cursors(o) }
      const listed = await loadPages(ctx, client.broadcasts.listRecipients(id, params), o.all === true)
      const counts: BroadcastRecipientCounts = listed.first.counts
      ctx.out.result({ data: listed.data, has_more: listed.has_more, next_cursor: listed.next_cursor, counts }, () => {
        ctx.out.table(listed.data, recipientColumns(ctx), "No recipients: `platform broadcasts add-recipients <id> --file recipients.csv`.")
        ctx.out.info(Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(" · "))
        moreHint(ctx, "recipients", listed, o)
      })
    })
