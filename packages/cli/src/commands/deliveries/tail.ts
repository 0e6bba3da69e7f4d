import { APIConnectionError, APIError, type EventDelivery, InternalServerError, NotFoundError, RateLimitError, UpstreamError } from "@platform/sdk"
import { clock } from "../../output.js"
import { streamFailure } from "../events/reconnect-notices.js"
import { command, defined, int, pause, type CommandFactory } from "../util.js"
import { lastError, latencyMs, status, unknownEventTypeNote } from "./common.js"
import { DeliveryFollower } from "./follower.js"

/** Deliveries per list call; a poll pages back to the newest delivery of the previous one. */
const PAGE = 100

export const deliveriesTail: CommandFactory = (ctx) =>
  command("tail", "Follow delivery attempts live: one line per attempt (time, status, event type, latency)")
    .option("--subscription <id>", "only this subscription", int)
    .option("--channel <id>", "only this channel", int)
    .option("--event-type <type>", "only this event type")
    .option("--interval <ms>", "poll interval in milliseconds", int, 2000)
    .action(async (o) => {
      const client = await ctx.client()
      const filters = defined({ subscription_id: o.subscription as number | undefined, channel_id: o.channel as number | undefined, event_type: o.eventType as string | undefined })
      const signal = ctx.signal
      const options = signal ? { signal } : {}
      const follower = new DeliveryFollower()
      if (!ctx.flags.json) ctx.out.info(`${ctx.out.ce.bold("Tailing deliveries")} ${ctx.out.ce.dim("(^C to quit)")}`)
      const note = unknownEventTypeNote(ctx, o.eventType as string | undefined)
      if (note !== undefined) ctx.out.info(note)
      let failures = 0
      while (!signal?.aborted) {
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
          await pause(waitMs, signal)
          continue
        }
        for (const d of attempts) print(d)
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

/** Failures a later poll may not meet: no connection, a spent rate limit, a 5xx. */
const transient = (error: unknown): boolean =>
  error instanceof APIConnectionError || error instanceof RateLimitError || error instanceof InternalServerError || error instanceof UpstreamError
