import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Duration, Effect, Option, Stream } from "effect"
import { canonicalEnvelope } from "../delivery/envelope.js"
import { awaitPulse, DeliveryWakeup } from "../delivery/wakeup.js"
import { EventStream } from "../domain/event-stream.js"

const encoder = new TextEncoder()
const POLL = Duration.seconds(1)
const HEARTBEAT_MS = 15_000

/**
 * GET /platform/v1/events/stream: Server-Sent Events of the account's envelopes
 * as they are written (woken by the outbox pulse, polled each second as
 * recovery), a comment line every 15 s so proxies keep the connection open.
 */
export const EventsStreamLive = HttpApiBuilder.group(PlatformApi, "events", (handlers) =>
  Effect.gen(function*() {
    const stream = yield* EventStream
    const wakeup = yield* DeliveryWakeup
    return handlers.handleRaw("stream", ({ headers, urlParams }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const eventTypes = urlParams.event_types
        const filter = {
          accountId: principal.account_id,
          eventTypes: eventTypes !== undefined && eventTypes.length > 0 ? eventTypes : undefined,
          channelId: urlParams.channel_id
        }
        let position = yield* stream.start(principal.account_id, headers["last-event-id"])
        let lastWrite = Date.now()
        const next = Effect.gen(function*() {
          for (;;) {
            const pulse = wakeup.events.current
            const rows = yield* stream.after(filter, position)
            if (rows.length > 0) {
              position = rows[rows.length - 1]!.id
              lastWrite = Date.now()
              const text = rows.map((r) =>
                `id: ${r.event_id}\nevent: ${r.event_type}\ndata: ${
                  JSON.stringify(canonicalEnvelope(r.envelope as Record<string, unknown>))
                }\n\n`
              ).join("")
              return encoder.encode(text)
            }
            if (Date.now() - lastWrite >= HEARTBEAT_MS) {
              lastWrite = Date.now()
              return encoder.encode(": keep-alive\n\n")
            }
            yield* awaitPulse(pulse, POLL)
          }
        })
        const body = Stream.concat(
          Stream.make(encoder.encode("retry: 3000\n: connected\n\n")),
          Stream.repeatEffectOption(next.pipe(Effect.mapError(() => Option.none())))
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
        })
      }))
  }))
