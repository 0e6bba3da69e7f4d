import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { optional } from "../common.js"
import { RateLimited, wire } from "../errors.js"
import { EventType } from "../events.js"
import { EVENT_STREAMS_PER_ACCOUNT, EVENT_STREAMS_RETRY_AFTER_SECONDS } from "../limits.js"
import { IntFromString } from "../pagination.js"
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
 * one (a misspelt type is a 422, not a stream that stays silent), and one channel.
 */
export const EventStreamQuery = Schema.Struct({
  event_types: optional(Schema.compose(CommaSeparated, Schema.Array(EventType))),
  channel_id: optional(IntFromString)
})
export type EventStreamQuery = typeof EventStreamQuery.Type

/** `/platform/v1/events/stream`: Server-Sent Events of the account's envelopes (manage:webhooks, key or cookie). */
export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("stream", "/platform/v1/events/stream")
      .setUrlParams(EventStreamQuery)
      .setHeaders(Schema.Struct({ "last-event-id": optional(Schema.String) }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .addError(wire(RateLimited))
      .annotate(OpenApi.Summary, "Stream the account's normalized events (Server-Sent Events)")
      .annotate(
        OpenApi.Description,
        "One `event:` (the type), `id:` (the event id) and `data:` (the envelope) per event as it is written. " +
          "`Last-Event-ID` resumes after that event within the last 24 hours. Comment lines keep the connection alive. " +
          "`conversation.inactive` is not on the stream: it is sent per subscription, by its `inactivity_minutes`. " +
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
