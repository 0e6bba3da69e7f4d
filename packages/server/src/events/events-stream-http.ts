import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import {
  CurrentPrincipal,
  EVENT_STREAMS_RETRY_AFTER_SECONDS,
  LAST_EVENT_ID_NOT_FOUND,
  type LastEventIdNotFound,
  PlatformApi,
  RateLimited
} from "@platform/shared"
import { Clock, Duration, Effect, Option, Stream } from "effect"
import { makeCredentialCheck } from "../auth/credential-check.js"
import { isConnectionFault } from "../db/connection-fault.js"
import { canonicalEnvelope } from "../outbox/envelope.js"
import { awaitPulse, DeliveryWakeup } from "../delivery/wakeup.js"
import { EventStream } from "./event-stream.js"
import { StreamCursor } from "./stream-cursor.js"
import { Draining } from "../http/draining.js"
import { responseHeaders } from "../http/response-headers.js"
import { countRateLimited } from "../telemetry/metrics.js"

const encoder = new TextEncoder()
const POLL = Duration.seconds(1)
const HEARTBEAT_MS = 15_000
/** How often an open stream checks that its key or session still authenticates (ApiKeys caches a key 5 s). */
const RECHECK_MS = 5_000

/** The first message of a stream whose Last-Event-ID was not found: its `id:` is where the stream starts, so a reconnect goes on from there. */
const notFound = (lastEventId: string, newest: string | null) => {
  const data: LastEventIdNotFound = {
    last_event_id: lastEventId,
    starts_after: newest,
    message: `Last-Event-ID ${lastEventId} is not an event of this account from the last 24 hours; the stream starts ` +
      `${newest === null ? "with the next event" : `after the newest event, ${newest}`}, and events after ${lastEventId} may have been missed.`
  }
  return `${newest === null ? "" : `id: ${newest}\n`}event: ${LAST_EVENT_ID_NOT_FOUND}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * GET /platform/v1/events/stream: Server-Sent Events of the account's envelopes
 * as they are written (woken by the outbox pulse, polled each second as
 * recovery), a comment line every 15 s so proxies keep the connection open.
 * Events commit out of id order; the StreamCursor keeps each connection's
 * position so an event committed after higher ids is still sent, once. The
 * stream ends once its key is deactivated, deleted or expired, or its session
 * ends (checked every 5 s): the client's reconnect then gets the 401. It also ends
 * when the database becomes unreachable: the reconnect gets 503 until it is back.
 * An account holds at most EVENT_STREAMS_PER_ACCOUNT streams; one more is 429 with
 * Retry-After.
 */
export const EventsStreamLive = HttpApiBuilder.group(PlatformApi, "events", (handlers) =>
  Effect.gen(function*() {
    const stream = yield* EventStream
    const wakeup = yield* DeliveryWakeup
    const draining = yield* Draining
    const credentialCheck = yield* makeCredentialCheck
    return handlers.handleRaw("stream", ({ headers, request, urlParams }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        // The slot is the request scope's, which closes once the response (the whole stream) has ended.
        if (!(yield* stream.slot(principal.account_id))) {
          responseHeaders(request)["retry-after"] = String(EVENT_STREAMS_RETRY_AFTER_SECONDS)
          countRateLimited("event_streams")
          return yield* new RateLimited()
        }
        const stillAuthenticated = yield* credentialCheck
        const eventTypes = urlParams.event_types
        const filter = {
          accountId: principal.account_id,
          eventTypes: eventTypes !== undefined && eventTypes.length > 0 ? eventTypes : undefined,
          channelId: urlParams.channel_id
        }
        const lastEventId = headers["last-event-id"] === "" ? undefined : headers["last-event-id"]
        const begin = yield* stream.start(principal.account_id, lastEventId)
        let cursor = StreamCursor.start(begin.position)
        let lastWrite = yield* Clock.currentTimeMillis
        let lastCheck = lastWrite
        const next = Effect.gen(function*() {
          for (;;) {
            const pulse = wakeup.events.current
            const at = yield* Clock.currentTimeMillis
            if (at - lastCheck >= RECHECK_MS) {
              lastCheck = at
              if (!(yield* stillAuthenticated(at))) {
                return yield* Effect.fail(Option.none())
              }
            }
            const page = yield* stream.poll(filter, cursor.settled, cursor.sent)
            const { cursor: advanced, forced } = StreamCursor.advance(cursor, {
              at,
              xmin: page.xmin,
              xmax: page.xmax,
              maxId: page.maxId,
              ids: page.events.map((r) => r.id),
              full: page.full
            })
            cursor = advanced
            if (forced !== undefined) {
              yield* Effect.logDebug("event stream settled past transactions still open").pipe(
                Effect.annotateLogs({ account_id: filter.accountId, lag_ms: forced.lagMs, sent: forced.sent, settled: cursor.settled })
              )
            }
            if (page.events.length > 0) {
              lastWrite = at
              const text = page.events.map((r) =>
                `id: ${r.event_id}\nevent: ${r.event_type}\ndata: ${
                  JSON.stringify(canonicalEnvelope(r.envelope as Record<string, unknown>))
                }\n\n`
              ).join("")
              return encoder.encode(text)
            }
            if (at - lastWrite >= HEARTBEAT_MS) {
              lastWrite = at
              return encoder.encode(": keep-alive\n\n")
            }
            yield* awaitPulse(wakeup.events, pulse, POLL)
          }
        }).pipe(
          // The database went away: the stream ends cleanly, and the client's reconnect (with
          // Last-Event-ID) is answered 503 with Retry-After until the database is back.
          Effect.catchAllDefect((defect) =>
            isConnectionFault(defect)
              ? Effect.zipRight(
                Effect.logWarning("event stream ended: the database is unreachable").pipe(
                  Effect.annotateLogs("account_id", filter.accountId)
                ),
                Effect.fail(Option.none())
              )
              : Effect.die(defect)
          )
        )
        const opening = "retry: 3000\n: connected\n\n" +
          (lastEventId !== undefined && !begin.resumed ? notFound(lastEventId, begin.newest) : "")
        const body = Stream.concat(
          Stream.make(encoder.encode(opening)),
          Stream.repeatEffectOption(next)
        ).pipe(
          // On shutdown the stream ends (clients reconnect with Last-Event-ID) instead of holding the drain.
          Stream.interruptWhen(draining.started)
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }
        })
      }))
  }))
