import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { optional, queryParams } from "../common.js"
import { RateLimited, wire } from "../errors.js"
import { EventId, EventType } from "../events.js"
import { EVENT_STREAMS_PER_ACCOUNT, EVENT_STREAMS_RETRY_AFTER_SECONDS } from "../limits.js"
import { IntegerParam } from "../param.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

/**
 * `a, b,` on the wire, `["a", "b"]` decoded: items are trimmed and empty ones dropped.
 * The parameter may also be repeated (`?p=a&p=b,c`), each value split the same way.
 */
const CommaSeparated = Schema.transform(Schema.Union(Schema.String, Schema.Array(Schema.String)), Schema.Array(Schema.String), {
  strict: true,
  decode: (value) =>
    (typeof value === "string" ? [value] : value).flatMap((text) =>
      text.split(",").map((item) => item.trim()).filter((item) => item.length > 0)
    ),
  encode: (items) => items.join(",")
})

/**
 * Query of GET /platform/v1/events/stream: comma-separated (or repeated) event types, each a known
 * one the stream carries (a misspelt type or conversation.inactive is a 422, not a stream that stays
 * silent), and one channel.
 */
/** An event type the stream carries: not `conversation.inactive`, which only subscriptions get (a stream filtered to it would stay silent). */
const StreamEventType = EventType.pipe(Schema.filter((type) => type !== "conversation.inactive", {
  message: () => "conversation.inactive is not on the stream: it is sent per subscription, by its inactivity_minutes"
}))

export const EventStreamQuery = Schema.Struct({
  event_types: optional(
    Schema.compose(
      CommaSeparated.annotations({
        description: "Only these event types, comma-separated (`message.sent,message.read`) or repeated; each must be a " +
          "known type carried by the stream (not `conversation.inactive`)."
      }),
      Schema.Array(StreamEventType)
    )
  ),
  channel_id: optional(IntegerParam("Only events of this channel."))
})
export type EventStreamQuery = typeof EventStreamQuery.Type

/**
 * The SSE `event:` of the stream's first message when `Last-Event-ID` names no event of the account
 * from the last 24 hours: the stream starts after the newest event instead, and says so, since events
 * after the one asked for may have been missed. Its `id:` is that newest event (none when the account
 * has none), so a reconnect resumes from there; its data is `LastEventIdNotFound`.
 */
export const LAST_EVENT_ID_NOT_FOUND = "last_event_id_not_found" as const

/** The data of a `last_event_id_not_found` message. */
export const LastEventIdNotFound = Schema.Struct({
  last_event_id: EventId,
  starts_after: Schema.NullOr(EventId),
  message: Schema.String
}).annotations({ identifier: "LastEventIdNotFound" })
export type LastEventIdNotFound = typeof LastEventIdNotFound.Type

const isEventId = Schema.is(EventId)
const LastEventIdHeader = Schema.String.pipe(Schema.filter((value) => value === "" || isEventId(value), {
  message: () => "must be an event id (evt_ followed by 32 lowercase hex characters), or empty for none",
  description: "Resume right after this event id (within the last 24 hours); clients send the last `id:` they received.",
  jsonSchema: {}
}))

/** `/platform/v1/events/stream`: Server-Sent Events of the account's envelopes (manage:webhooks, key or cookie). */
export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("stream", "/platform/v1/events/stream")
      .setUrlParams(queryParams(EventStreamQuery))
      // Empty is no Last-Event-ID (an EventSource that has seen no id sends none); anything else is an event id.
      .setHeaders(Schema.Struct({
        "last-event-id": optional(LastEventIdHeader)
      }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .addError(wire(RateLimited))
      .annotate(OpenApi.Summary, "Stream the account's normalized events (Server-Sent Events)")
      .annotate(
        OpenApi.Description,
        "One `event:` (the type), `id:` (the event id) and `data:` (the envelope) per event as it is written. " +
          "`Last-Event-ID` resumes after that event if it is of the last 24 hours or still the account's newest (422 when it is " +
          "not an event id); otherwise the stream starts after the newest event and its first message is " +
          "`event: last_event_id_not_found` with `id:` that newest event and data `{last_event_id, starts_after, message}`: " +
          "events after the one asked for may have been missed. Comment lines keep the connection alive. " +
          "`conversation.inactive` is not on the stream (422 in `event_types`): it is sent per subscription, by its `inactivity_minutes`. " +
          "The stream ends when the server shuts down; reconnect with `Last-Event-ID`. It also ends within 5 s of " +
          "its key being deactivated, deleted or expiring, or its dashboard session ending; the reconnect is then 401. " +
          `At most ${EVENT_STREAMS_PER_ACCOUNT} streams of one account are open at once: one more is 429 ` +
          `\`rate limit exceeded\` with \`Retry-After: ${EVENT_STREAMS_RETRY_AFTER_SECONDS}\` until one of them closes.`
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:webhooks")
  .annotate(CookieAllowed, true)
  .annotate(OpenApi.Title, "Events")
  .annotate(OpenApi.Description, "The account's normalized events as Server-Sent Events, resumable with Last-Event-ID: watch or forward events with no public URL.")
{}
