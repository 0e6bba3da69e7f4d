import { EVENT_TYPES as SHARED_EVENT_TYPES } from "@platform/shared"
import { EventStream, type ServerSentEvent } from "../core/sse.js"
import { APIResource, knownParams } from "../resource.js"
import type { AnyEnvelope, Envelope, EventType, LastEventIdNotFound } from "../types.js"

/** The 12 event types this SDK types (the stream may also carry newer ones). */
export const EVENT_TYPES = SHARED_EVENT_TYPES

const knownTypes: ReadonlySet<string> = new Set(EVENT_TYPES)

/**
 * Whether an envelope is of a type this SDK knows; narrowing on `event` then types `data`
 * (`if (isKnownEvent(e) && e.event === "message.read") e.data.message_id`), which a stream
 * item alone cannot do, since it may be of a newer type whose `event` is any string.
 */
export const isKnownEvent = (envelope: AnyEnvelope): envelope is Envelope => knownTypes.has(envelope.event)

/** Options of `events.stream`. */
export interface EventStreamParams {
  /** Only these event types (default: every event of the account). */
  readonly event_types?: ReadonlyArray<EventType | (string & {})>
  /** Only events of this channel. */
  readonly channel_id?: number
  /** Resume right after this event id (the server replays the last 24 hours). */
  readonly lastEventId?: string
  /** Stops the stream; iteration then ends without an error. */
  readonly signal?: AbortSignal
  /** Called when the connection dropped and the stream is about to reconnect. */
  readonly onReconnect?: (info: { readonly attempt: number; readonly delayMs: number; readonly error: unknown }) => void
  /**
   * Called each time a connection is open (the server answered); the stream then
   * starts at the newest event (or after `Last-Event-ID`), so events written from
   * here on are not missed. `reconnect` is false for the first connection.
   */
  readonly onOpen?: (info: { readonly reconnect: boolean }) => void
  /** Give up after this many failed reconnects in a row, a connection that sent anything ending the row (default: keep trying). */
  readonly maxReconnects?: number
  /**
   * Milliseconds waiting without any byte (the server sends a keep-alive every 15 s) after which the connection is
   * replaced (default 45 000; 0 never); time your loop spends on an event does not count.
   */
  readonly idleTimeoutMs?: number
  /**
   * Called when the server could not resume after the `Last-Event-ID` sent (`lastEventId`, or the last event of a
   * dropped connection) because it is unknown or older than 24 hours: the stream goes on after the newest event, and
   * events after the one asked for may have been missed (list them from your own records, or accept the gap).
   */
  readonly onLastEventIdNotFound?: (info: LastEventIdNotFound) => void
  /** Extra headers for each connection. */
  readonly headers?: Readonly<Record<string, string>>
}

const STREAM_PARAMS = [
  "event_types", "channel_id", "lastEventId", "signal", "onReconnect", "onOpen", "maxReconnects", "idleTimeoutMs",
  "onLastEventIdNotFound", "headers"
] as const satisfies ReadonlyArray<keyof EventStreamParams>

/** Parses a stream message into an envelope; keep-alives and non-JSON messages are skipped. */
export const envelopeOf = (message: ServerSentEvent): AnyEnvelope | undefined => {
  if (message.event === "ping" || message.event === "keepalive") return undefined
  try {
    const value = JSON.parse(message.data) as unknown
    return value !== null && typeof value === "object" && "event" in value ? (value as AnyEnvelope) : undefined
  } catch {
    return undefined
  }
}

/** The live stream of the account's normalized events (`GET /platform/v1/events/stream`, Server-Sent Events). */
export class Events extends APIResource {
  /** Opens the event stream: `for await` yields envelopes, reconnecting with `Last-Event-ID` after a drop. */
  stream(params: EventStreamParams = {}): EventStream<AnyEnvelope> {
    knownParams("events.stream", params, STREAM_PARAMS)
    const query = { event_types: params.event_types, channel_id: params.channel_id }
    return new EventStream<AnyEnvelope>(
      async (lastEventId, signal) => {
        const headers: Record<string, string> = { accept: "text/event-stream", ...params.headers }
        if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
        const body = await this._client.request<ReadableStream<Uint8Array> | undefined>(
          { method: "GET", path: "/platform/v1/events/stream", query, stream: true },
          { signal, headers, maxRetries: 0 }
        )
        if (!body) throw new Error("the event stream answered without a body")
        return body
      },
      envelopeOf,
      {
        lastEventId: params.lastEventId,
        signal: params.signal,
        onReconnect: params.onReconnect,
        onOpen: params.onOpen,
        maxReconnects: params.maxReconnects,
        idleTimeoutMs: params.idleTimeoutMs,
        onLastEventIdNotFound: params.onLastEventIdNotFound
      }
    )
  }
}
