import { Option } from "commander"
import { command, defined, int, type CommandFactory } from "../util.js"
import { nativeColumns, rawColumns } from "./common.js"

export const deliveriesList: CommandFactory = (ctx) =>
  command("list", "List delivery attempts, newest first")
    .addOption(new Option("--mode <mode>", "native (normalized events) or meta (raw forward)").choices(["native", "meta"]).default("native"))
    .option("--subscription <id>", "only this subscription (native)", int)
    .option("--channel <id>", "only this channel", int)
    .addOption(new Option("--status <status>", "only this status").choices(["pending", "delivering", "delivered", "failed"]))
    .option("--event-type <type>", "only this event type (native)")
    .option("--errors-only", "only failed deliveries")
    .option("--limit <n>", "page size (1..200)", int)
    .action(async (o) => {
      const client = await ctx.client()
      const filters = defined({
        subscription_id: o.subscription as number | undefined,
        channel_id: o.channel as number | undefined,
        status: o.status as string | undefined,
        event_type: o.eventType as string | undefined,
        errors_only: o.errorsOnly as boolean | undefined,
        limit: o.limit as number | undefined
      })
      if (o.mode === "meta") {
        const page = await ctx.out.spin("Loading", Promise.resolve(client.webhooks.deliveries.list({ ...filters, mode: "meta" })))
        ctx.out.result({ mode: page.mode, data: page.data, has_more: page.has_more, next_cursor: page.next_cursor }, () => ctx.out.table(page.data, rawColumns(ctx), "No deliveries."))
        return
      }
      const page = await ctx.out.spin("Loading", Promise.resolve(client.webhooks.deliveries.list(filters)))
      ctx.out.result({ mode: page.mode, data: page.data, has_more: page.has_more, next_cursor: page.next_cursor }, () => ctx.out.table(page.data, nativeColumns(ctx), "No deliveries."))
    })
