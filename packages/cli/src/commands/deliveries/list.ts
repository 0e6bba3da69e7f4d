import { Option } from "commander"
import { usage } from "../../context.js"
import { command, defined, int, type CommandFactory } from "../util.js"
import { cursors, loadPages, moreHint, pageOptions } from "../pages.js"
import { nativeColumns, rawColumns, unknownEventTypeNote } from "./common.js"

export const deliveriesList: CommandFactory = (ctx) =>
  pageOptions(
    command("list", "List delivery attempts, newest first")
      .addOption(new Option("--mode <mode>", "native (normalized events) or meta (raw forward)").choices(["native", "meta"]).default("native"))
      .option("--subscription <id>", "only this subscription (native)", int)
      .option("--channel <id>", "only this channel", int)
      .addOption(new Option("--status <status>", "only this status").choices(["pending", "delivering", "delivered", "failed"]))
      .option("--event-type <type>", "only this event type (native)")
      .option("--errors-only", "only failed deliveries")
      .option("--limit <n>", "page size (1..200)", int)
  ).action(async (o) => {
    // Raw-forward rows belong to a channel, not to a subscription, and carry the upstream's payload, not an event type.
    if (o.mode === "meta" && (o.subscription !== undefined || o.eventType !== undefined)) {
      throw usage("--subscription and --event-type filter normalized deliveries only (--mode native); raw-forward (meta) rows have neither")
    }
    const client = await ctx.client()
    const filters = defined({
      subscription_id: o.subscription as number | undefined,
      channel_id: o.channel as number | undefined,
      status: o.status as string | undefined,
      event_type: o.eventType as string | undefined,
      errors_only: o.errorsOnly as boolean | undefined,
      limit: o.limit as number | undefined,
      ...cursors(o)
    })
    const all = o.all === true
    if (o.mode === "meta") {
      const { first, ...listed } = await loadPages(ctx, client.webhooks.deliveries.list({ ...filters, mode: "meta" }), all)
      ctx.out.result({ mode: first.mode, ...listed }, () => {
        ctx.out.table(listed.data, rawColumns(ctx), "No deliveries.")
        moreHint(ctx, "deliveries", listed, o)
      })
      return
    }
    const { first, ...listed } = await loadPages(ctx, client.webhooks.deliveries.list(filters), all)
    ctx.out.result({ mode: first.mode, ...listed }, () => {
      ctx.out.table(listed.data, nativeColumns(ctx), "No deliveries.")
      const note = listed.data.length === 0 ? unknownEventTypeNote(ctx, o.eventType as string | undefined) : undefined
      if (note !== undefined) ctx.out.info(note)
      moreHint(ctx, "deliveries", listed, o)
    })
  })
