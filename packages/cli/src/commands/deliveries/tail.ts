import type { EventDelivery } from "@platform/sdk"
import { clock } from "../../output.js"
import { command, defined, int, pause, type CommandFactory } from "../util.js"
import { lastError, latencyMs, status } from "./common.js"

export const deliveriesTail: CommandFactory = (ctx) =>
  command("tail", "Follow delivery attempts live: one line per attempt (time, status, event type, latency)")
    .option("--subscription <id>", "only this subscription", int)
    .option("--channel <id>", "only this channel", int)
    .option("--event-type <type>", "only this event type")
    .option("--interval <ms>", "poll interval in milliseconds", int, 2000)
    .action(async (o) => {
      const client = await ctx.client()
      const filters = defined({ subscription_id: o.subscription as number | undefined, channel_id: o.channel as number | undefined, event_type: o.eventType as string | undefined })
      const seen = new Map<number, string>()
      const signal = ctx.signal
      if (!ctx.flags.json) ctx.out.info(`${ctx.out.ce.bold("Tailing deliveries")} ${ctx.out.ce.dim("(^C to quit)")}`)
      let first = true
      while (!signal?.aborted) {
        const page = await client.webhooks.deliveries.list({ ...filters, limit: 100 }, signal ? { signal } : {})
        const fresh: EventDelivery[] = []
        for (const d of page.data) {
          const key = `${d.status}:${d.attempts}`
          if (seen.get(d.id) !== key && !(d.status === "pending" && d.attempts === 0)) fresh.push(d)
          seen.set(d.id, key)
        }
        // Existing attempts are history: only attempts made after the tail started are shown.
        if (!first) for (const d of fresh.reverse()) print(d)
        first = false
        await pause(o.interval as number, signal)
      }
      function print(d: EventDelivery) {
        const latency = latencyMs(d)
        if (ctx.flags.json) {
          ctx.out.jsonLine({ ...d, latency_ms: latency ?? null })
          return
        }
        const http = d.response_status == null ? "[---]" : `[${d.response_status}]`
        ctx.out.line(
          [
            ctx.out.c.dim(clock()),
            status(ctx, d.status.padEnd(10)),
            http,
            d.event_type.padEnd(24),
            latency === undefined ? "      -" : `${String(latency).padStart(5)}ms`,
            ...(d.last_error == null ? [] : [lastError(ctx, d)]),
            ctx.out.c.dim(`attempt ${d.attempts} · delivery ${d.id} · sub ${d.subscription_id} · ${d.event_id}`)
          ].join("  ")
        )
      }
    })
