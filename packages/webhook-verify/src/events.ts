// A copy of @platform/shared's EVENT_TYPES, since this package is published without
// dependencies; test/event-types-match-shared.test.ts fails when the two differ.

/** The twelve event types the platform emits (SPEC §6.1), in SPEC order. */
export const EVENT_TYPES = [
  "message.received",
  "message.sent",
  "message.delivered",
  "message.read",
  "message.failed",
  "message.echo",
  "conversation.created",
  "conversation.ended",
  "conversation.inactive",
  "channel.connected",
  "channel.disconnected",
  "template.status_changed"
] as const

/** One of the twelve event types the platform emits. */
export type EventType = (typeof EVENT_TYPES)[number]

/** The `message.*` event types. */
export type MessageEventType = Extract<EventType, `message.${string}`>

/** The `conversation.*` event types. */
export type ConversationEventType = Extract<EventType, `conversation.${string}`>

/** The `channel.*` event types. */
export type ChannelEventType = Extract<EventType, `channel.${string}`>

/** The upstream error envelope carried by `message.failed` (same shape as the send route's 502 body). */
export interface UpstreamErrorEnvelope {
  /** Platform error code. */
  readonly error: string
  /** Upstream error code, or null. */
  readonly meta_code: number | null
  /** Upstream error subcode, or null. */
  readonly meta_subcode: number | null
  /** Upstream error title, or null. */
  readonly meta_title: string | null
  /** Human-readable message. */
  readonly message: string
  /** Upstream trace id, or null. */
  readonly fbtrace_id: string | null
  /** What to do about it, for the Meta codes developers meet most (outside the 24-hour window, template missing...); absent otherwise. */
  readonly hint?: string
}

/** The `data` of every `message.*` event (SPEC §6.2). */
export interface MessageEventData {
  /** Platform message id. */
  readonly message_id: number
  /** Platform conversation id. */
  readonly conversation_id: number
  /** The peer's identifier on the channel. */
  readonly peer_id: string
  /** Whether the message came from the peer or went to the peer. */
  readonly direction: "inbound" | "outbound"
  /** Who wrote the message: the peer, the API, or the owner from the chat app. */
  readonly source: "contact" | "api" | "app_echo"
  /** Message type (text, image, template, ...). */
  readonly type: string
  /** Text content, or null for media-only messages. */
  readonly text: string | null
  /** Whether the message carries media. */
  readonly has_media: boolean
  /** Media id, or null. */
  readonly media_id: string | null
  /** Delivery status for outbound messages (sent, delivered, read, failed), or null. */
  readonly status: string | null
  /** The upstream message id, or null. */
  readonly meta_message_id: string | null
  /** The upstream error envelope on `message.failed`. */
  readonly error?: UpstreamErrorEnvelope | null
  /** True on samples sent by the subscription test route. */
  readonly _test?: boolean
}

/** The `data` of every `conversation.*` event (SPEC §6.2). */
export interface ConversationEventData {
  /** Platform conversation id. */
  readonly conversation_id: number
  /** The peer's identifier on the channel. */
  readonly peer_id: string
  /** Conversation status. */
  readonly status: "active" | "ended"
  /** Number of messages in the conversation. */
  readonly message_count: number
  /** ISO 8601 time of the last activity, or null. */
  readonly last_active_at: string | null
  /** True on samples sent by the subscription test route. */
  readonly _test?: boolean
}

/** The `data` of every `channel.*` event (SPEC §6.2). */
export interface ChannelEventData {
  /** Platform channel id. */
  readonly channel_id: number
  /** `chat` (WhatsApp) or `social` (Instagram/Messenger). */
  readonly channel_type: "chat" | "social"
  /** The last 4 characters of the upstream identifier, never the full one. */
  readonly meta_identifier_suffix: string
  /** True on samples sent by the subscription test route. */
  readonly _test?: boolean
}

/** The `data` of a `template.status_changed` event (SPEC §6.2). */
export interface TemplateStatusChangedData {
  /** Platform template id. */
  readonly template_id: number
  /** Template name. */
  readonly name: string
  /** Template language code. */
  readonly language_code: string
  /** Status before the change. */
  readonly previous_status: string
  /** Status after the change. */
  readonly status: string
  /** The upstream template id, or null. */
  readonly meta_template_id: string | null
  /** Rejection reason, or null (always null when the new status is approved). */
  readonly rejection_reason: string | null
  /** True on samples sent by the subscription test route. */
  readonly _test?: boolean
}

/** Maps each event type to the shape of its `data`. */
export interface EventDataMap {
  readonly "message.received": MessageEventData
  readonly "message.sent": MessageEventData
  readonly "message.delivered": MessageEventData
  readonly "message.read": MessageEventData
  readonly "message.failed": MessageEventData
  readonly "message.echo": MessageEventData
  readonly "conversation.created": ConversationEventData
  readonly "conversation.ended": ConversationEventData
  readonly "conversation.inactive": ConversationEventData
  readonly "channel.connected": ChannelEventData
  readonly "channel.disconnected": ChannelEventData
  readonly "template.status_changed": TemplateStatusChangedData
}

/** The fields every envelope carries, whatever its event type (SPEC §6.2). */
export interface EnvelopeFields {
  /** Event id `evt_<32 hex>`; retries reuse it, so it is the idempotency key. */
  readonly id: string
  /** Developer account the event belongs to. */
  readonly developer_account_id: number
  /** Channel the event belongs to, or null on account-level events without a channel. */
  readonly platform_channel_id: number | null
  /** ISO 8601 UTC time the event occurred. */
  readonly occurred_at: string
  /** API version of the payload. */
  readonly api_version: "platform-v1"
}

/** A typed envelope: a discriminated union over `event` when `E` is a union. */
export type Envelope<E extends EventType = EventType> = E extends EventType
  ? {
      readonly id: string
      readonly event: E
      readonly developer_account_id: number
      readonly platform_channel_id: number | null
      readonly occurred_at: string
      readonly api_version: "platform-v1"
      readonly data: EventDataMap[E]
    }
  : never

/** A parsed event: the discriminated union of the twelve typed envelopes, so `switch (event.event)` narrows `data`. */
export type WebhookEvent = Envelope

/** An envelope whose event type is newer than this library: handed over as a generic envelope instead of failing. */
export interface UnknownWebhookEvent extends Omit<EnvelopeFields, "api_version"> {
  /** API version of the payload. */
  readonly api_version: string
  /** The event type this version does not know. */
  readonly event: string
  /** The untyped event data. */
  readonly data: Readonly<Record<string, unknown>>
}

/** A batch body (SPEC §6.4): `{ events: [envelope, ...] }`. */
export interface EnvelopeBatch {
  /** The buffered envelopes, in emission order. */
  readonly events: ReadonlyArray<Envelope>
}

const known: ReadonlySet<string> = new Set(EVENT_TYPES)

/** Whether a string is one of the twelve known event types. */
export function isEventType(value: string): value is EventType {
  return known.has(value)
}
