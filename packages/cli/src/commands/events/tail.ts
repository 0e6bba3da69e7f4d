import { CliError, usage } from "../../context.js"
import { clock } from "../../output.js"
import { command, int, list, type CommandFactory } from "../util.js"
import { reconnectNotices } from "./reconnect-notices.js"
import { summary } from "./summary.js"

const EVENT_ID = /^evt_[0-9a-f]{32}$/

export const eventsTail: CommandFactory = (ctx) =>
  command("tail", "Stream the account's events live (Server-Sent Events; reconnects on its own)")
    .option("--events <types>", "only these event types, comma-separated", list)
    .option("--channel <id>", "only this channel", int)
    .option("--since <event_id>", "replay events after this id (last 24 h), then follow")
    .option("--count <n>", "stop after n events (exit 1 if --timeout passes first)", int)
    .option("--timeout <seconds>", "stop after this many seconds", int)
    .action(async (o) => {
      if (o.since !== undefined && !EVENT_ID.test(o.since as string)) {
        throw usage(`--since must be an event id (evt_ followed by 32 lowercase hex characters), such as events tail prints, got ${JSON.stringify(o.since)}`)
      }
      const client = await ctx.client()
      const count = o.count as number | undefined
      const timeoutMs = o.timeout === undefined ? undefined : (o.timeout as number) * 1000
      // --timeout ends the stream through its own signal, so Ctrl-C (ctx.signal) still means 130.
      const timer = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)
      const signals = [...(ctx.signal ? [ctx.signal] : []), ...(timer ? [timer] : [])]
      const stream = client.events.stream({
        ...(o.events ? { event_types: o.events as string[] } : {}),
        ...(o.channel !== undefined ? { channel_id: o.channel as number } : {}),
        ...(o.since ? { lastEventId: o.since as string } : {}),
        ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
        // Said once the stream is open (as listen's "Ready!"): events written from then on are shown.
        ...reconnectNotices(ctx, ({ reconnect }) => {
          if (ctx.flags.json) return
          if (reconnect) return ctx.out.info(ctx.out.ce.green("Reconnected; resuming after the last event."))
          ctx.out.info(`${ctx.out.ce.bold("Streaming events")} ${ctx.out.ce.dim("(^C to quit)")}`)
        })
      })
      let seen = 0
      if (count !== 0) {
        for await (const e of stream) {
          seen++
          if (ctx.flags.json) ctx.out.jsonLine(e)
          else
            ctx.out.line(
              [ctx.out.c.dim(clock(new Date(e.occurred_at))), ctx.out.c.cyan(e.event.padEnd(24)), `ch ${e.platform_channel_id ?? "-"}`.padEnd(7), summary(e), ctx.out.c.dim(e.id)].join("  ")
            )
          if (count !== undefined && seen >= count) {
            stream.close()
            break
          }
        }
      }
      if (count !== undefined && seen < count && !ctx.signal?.aborted) {
        throw new CliError(`Timed out after ${o.timeout as number} s with ${seen} of ${count} events.`)
      }
    })
