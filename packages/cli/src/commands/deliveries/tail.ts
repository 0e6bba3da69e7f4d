import { APIConnectionError, APIError, type EventDelivery, InternalServerError, NotFoundError, RateLimitError, UpstreamError } from "@platform/sdk"
import { clock } from "../../output.js"
import { reconnectNotices, streamFailure } from "../events/reconnect-notices.js"
import { command, defined, int, pause, type CommandFactory } from "../util.js"
import { attemptTime, lastError, latencyMs, status, unknownEventTypeNote } from "./common.js"
import { DeliveryFollower } from "./follower.js"

/** Deliveries per list call; a poll pages back to the newest delivery of the previous one. */
const PAGE = 100
/*
 * `deliveries tail` listens to the event stream and polls the deliveries list when something can have changed:
 * DEBOUNCE_MS after an event (events close together share one poll), again EVENT_FOLLOW_UP_MS later while the
 * event's delivery has not shown up (fan-out writes it just after the event), when an in-flight delivery's
 * next_retry_at comes due, and otherwise every few seconds for what the stream cannot signal (a test delivery, a
 * redeliver from another client): as often as two thirds of the key's rate limit allow (every 1.5 s at the default 60
 * a minute, so an attempt is printed within 2 s of it), leaving a third to the developer's own commands.
 * Without the stream (a key without its scope) it polls every --interval, or as the budget allows.
 */
const DEBOUNCE_MS = 300
const EVENT_FOLLOW_UP_MS = 1000
const EVENT_FOLLOW_UPS = 3
const IDLE_POLL_MIN_MS = 1500
/** The default least gap between two polls (--interval). */
const MIN_GAP_MS = 1000
/** The share of the key's per-minute budget the idle polls may use. */
const IDLE_POLL_BUDGET = 2 / 3

export const deliveriesTail: CommandFactory = (ctx) =>
  command("tail", "Follow delivery attempts live: one line per attempt (time, status, event type, latency)")
    .option("--subscription <id>", "only this subscription", int)
    .option("--channel <id>", "only this channel", int)
    .option("--event-type <type>", "only this event type")
    .option("--interval <ms>", "minimum gap between two polls of the deliveries list, in milliseconds (default 1000), and the poll interval without the event stream (default: as the key's rate limit allows)", int)
    .action(async (o) => {
      const client = await ctx.client()
      const filters = defined({ subscription_id: o.subscription as number | undefined, channel_id: o.channel as number | undefined, event_type: o.eventType as string | undefined })
      const signal = ctx.signal
      const options = signal ? { signal } : {}
      const follower = new DeliveryFollower()
      if (!ctx.flags.json) ctx.out.info(`${ctx.out.ce.bold("Tailing deliveries")} ${ctx.out.ce.dim("(^C to quit)")}`)
      const note = unknownEventTypeNote(ctx, o.eventType as string | undefined)
      if (note !== undefined) ctx.out.info(note)
      const given = o.interval as number | undefined
      const interval = given ?? MIN_GAP_MS
      const idlePollMs = () => Math.max(IDLE_POLL_MIN_MS, Math.ceil(60_000 / ((client.rateLimit?.limit ?? 60) * IDLE_POLL_BUDGET)))
      /** The gap between polls without the event stream: --interval, else what the key's budget allows. */
      const fallbackMs = () => given ?? idlePollMs()
      // Polls when something can have changed (see DEBOUNCE_MS above), never closer together than --interval.
      /** Whether the stream was refused (or ended for good): polls every --interval then. */
      const fallback = { polling: false }
      let nextAt = 0
      let lastPoll = Number.NEGATIVE_INFINITY
      let failures = 0
      let quiet = 0
      let waker: AbortController | undefined
      const want = (at: number) => {
        if (at >= nextAt) return
        nextAt = at
        waker?.abort()
      }
      /** Events whose delivery no poll has shown yet (fan-out writes it just after), and how many more polls to spend on each. */
      const awaited = new Map<string, number>()
      const stream = client.events.stream({
        ...(o.channel !== undefined ? { channel_id: o.channel as number } : {}),
        ...(signal ? { signal } : {}),
        // Events written while the stream was down are replayed on resume; a poll on reconnect also covers the rest.
        ...reconnectNotices(ctx, ({ reconnect }) => (reconnect ? want(Date.now()) : undefined))
      })
      const streaming = (async () => {
        try {
          for await (const e of stream) {
            awaited.set(e.id, EVENT_FOLLOW_UPS)
            want(Date.now() + DEBOUNCE_MS)
          }
        } catch (error) {
          if (signal?.aborted) return
          fallback.polling = true
          ctx.out.info(ctx.out.ce.yellow(`The event stream was refused (${streamFailure(error)}); polling the deliveries list every ${fallbackMs()} ms instead`))
          want(lastPoll + fallbackMs())
          return
        }
        if (signal?.aborted) return
        fallback.polling = true
        want(lastPoll + fallbackMs())
      })()
      while (!signal?.aborted) {
        const at = Math.max(nextAt, lastPoll + interval)
        if (Date.now() < at) {
          waker = new AbortController()
          await pause(at - Date.now(), signal ? AbortSignal.any([signal, waker.signal]) : waker.signal)
          waker = undefined
          continue
        }
        lastPoll = Date.now()
        nextAt = Number.POSITIVE_INFINITY
        let attempts: ReadonlyArray<EventDelivery>
        try {
          attempts = await follower.poll(
            (after) => client.webhooks.deliveries.list({ ...filters, limit: PAGE, ...(after === undefined ? {} : { after }) }, options),
            (id) => client.webhooks.deliveries.retrieve(id, {}, options).catch((e: unknown) => {
              if (e instanceof NotFoundError) return undefined
              throw e
            }),
            Date.now()
          )
          failures = 0
        } catch (error) {
          // Like `events tail`, a follow command outlives a server restart or a spent rate limit: it waits and polls again.
          if (signal?.aborted || !transient(error)) throw error
          const retryAfter = error instanceof APIError ? Number(error.headers.get("retry-after") ?? Number.NaN) : Number.NaN
          const waitMs = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : Math.min(30_000, 1000 * 2 ** failures)
          failures++
          ctx.out.info(ctx.out.ce.yellow(`Polling deliveries failed (${streamFailure(error)}); retrying in ${(waitMs / 1000).toFixed(1)} s`))
          nextAt = Math.min(nextAt, Date.now() + waitMs)
          continue
        }
        for (const d of attempts) print(d)
        const now = Date.now()
        quiet = attempts.length > 0 ? 0 : quiet + 1
        nextAt = Math.min(nextAt, lastPoll + (fallback.polling ? fallbackMs() : idlePollMs()))
        // An in-flight delivery: at its next_retry_at, or (not yet attempted, or overdue) again soon, backing off while nothing changes.
        const due = follower.nextDue()
        if (due !== undefined) nextAt = Math.min(nextAt, due > now ? due : now + Math.min(idlePollMs(), interval * 2 ** quiet))
        for (const [id, left] of awaited) {
          if (follower.sawEvent(id) || left <= 0) awaited.delete(id)
          else {
            awaited.set(id, left - 1)
            nextAt = Math.min(nextAt, now + EVENT_FOLLOW_UP_MS)
          }
        }
      }
      // Not awaited: `streaming` catches everything, and a closed stream has nothing more to say.
      stream.close()
      void streaming
      function print(d: EventDelivery) {
        const latency = latencyMs(d)
        if (ctx.flags.json) {
          ctx.out.jsonLine({ ...d, latency_ms: latency ?? null, attempted_at: attemptTime(d).toISOString() })
          return
        }
        const http = d.response_status == null ? "[---]" : `[${d.response_status}]`
        ctx.out.line(
          [
            ctx.out.c.dim(clock(attemptTime(d), true)),
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

/** Failures a later poll may not meet: no connection, a spent rate limit, a 5xx. */
const transient = (error: unknown): boolean =>
  error instanceof APIConnectionError || error instanceof RateLimitError || error instanceof InternalServerError || error instanceof UpstreamError
