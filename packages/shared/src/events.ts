import { Schema } from "effect"
import { Id, JsonObject, Timestamp, optional } from "./common.js"
import { EVENT_TYPES } from "./event-types.js"
import { API_VERSION } from "./limits.js"
import { MessageDirection, MessageSource } from "./message.js"

export const EventType = Schema.Literal(...EVENT_TYPES).annotations({ identifier: "EventType" })
export type EventType = typeof EventType.Type

/** A catch-all subscription (empty event_types) receives every event but this one. */
export const CATCH_ALL_EXCLUDED_EVENT_TYPES: ReadonlyArray<EventType> = ["message.received"]

/** Headers of a normalized delivery (SPEC §6.2) and of a raw forward (SPEC §6.5). */
export const WebhookHeaders = {
  event: "X-Platform-Event",
  eventId: "X-Platform-Event-Id",
  deliveryId: "X-Platform-Delivery-Id",
  signature: "X-Platform-Signature"
} as const

export const EventId = Schema.String.pipe(
  Schema.pattern(/^evt_[0-9a-f]{32}$/, { message: () => "must be evt_ followed by 32 lowercase hex characters" })
).annotations({ identifier: "EventId" })

/**
 * Upstream error envelope carried by message.failed (same shape as the send 502 body);
 * `hint`, added to SPEC's fields, says what to do for the common Meta codes (upstream-hints.ts).
 */
export const UpstreamErrorEnvelope = Schema.Struct({
  error: Schema.String,
  meta_code: Schema.NullOr(Schema.Int),
  meta_subcode: Schema.NullOr(Schema.Int),
  meta_title: Schema.NullOr(Schema.String),
  message: Schema.String,
  fbtrace_id: Schema.NullOr(Schema.String),
  hint: optional(Schema.String)
}).annotations({ identifier: "UpstreamErrorEnvelope" })
export type UpstreamErrorEnvelope = typeof UpstreamErrorEnvelope.Type

/** `data._test` is true on samples sent by the subscription test route. */
const testFlag = { _test: optional(Schema.Boolean) }

export const MessageEventData = Schema.Struct({
  message_id: Id,
  conversation_id: Id,
  peer_id: Schema.String,
  direction: MessageDirection,
  source: MessageSource,
  type: Schema.String,
  text: Schema.NullOr(Schema.String),
  has_media: Schema.Boolean,
  media_id: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  meta_message_id: Schema.NullOr(Schema.String),
  error: optional(Schema.NullOr(UpstreamErrorEnvelope)),
  ...testFlag
}).annotations({ identifier: "MessageEventData" })
export type MessageEventData = typeof MessageEventData.Type

export const ConversationEventData = Schema.Struct({
  conversation_id: Id,
  peer_id: Schema.String,
  status: Schema.Literal("active", "ended"),
  message_count: Schema.Int,
  last_active_at: Schema.NullOr(Timestamp),
  ...testFlag
}).annotations({ identifier: "ConversationEventData" })
export type ConversationEventData = typeof ConversationEventData.Type

export const ChannelEventData = Schema.Struct({
  channel_id: Id,
  channel_type: Schema.Literal("chat", "social"),
  meta_identifier_suffix: Schema.String.pipe(Schema.maxLength(4)),
  ...testFlag
}).annotations({ identifier: "ChannelEventData" })
export type ChannelEventData = typeof ChannelEventData.Type

export const TemplateStatusChangedData = Schema.Struct({
  template_id: Id,
  name: Schema.String,
  language_code: Schema.String,
  previous_status: Schema.String,
  status: Schema.String,
  meta_template_id: Schema.NullOr(Schema.String),
  rejection_reason: Schema.NullOr(Schema.String),
  ...testFlag
}).annotations({ identifier: "TemplateStatusChangedData" })
export type TemplateStatusChangedData = typeof TemplateStatusChangedData.Type

/** Data schema of each event type (SPEC §6.2 table). */
export const EventDataSchemas = {
  "message.received": MessageEventData,
  "message.sent": MessageEventData,
  "message.delivered": MessageEventData,
  "message.read": MessageEventData,
  "message.failed": MessageEventData,
  "message.echo": MessageEventData,
  "conversation.created": ConversationEventData,
  "conversation.ended": ConversationEventData,
  "conversation.inactive": ConversationEventData,
  "channel.connected": ChannelEventData,
  "channel.disconnected": ChannelEventData,
  "template.status_changed": TemplateStatusChangedData
} as const satisfies { readonly [E in EventType]: Schema.Schema.AnyNoContext }

/**
 * An envelope's fields in SPEC §6.2's order, which is the order encoding writes
 * them in: what the API returns reads key for key like the body a receiver got.
 */
const envelopeStruct = <Event extends Schema.Schema.Any, Data extends Schema.Schema.Any>(event: Event, data: Data) =>
  Schema.Struct({
    id: EventId,
    event,
    developer_account_id: Id,
    platform_channel_id: Schema.NullOr(Id),
    occurred_at: Timestamp,
    api_version: Schema.Literal(API_VERSION),
    data
  })

/** The envelope of one event type. */
export const EnvelopeFor = <E extends EventType>(event: E) => envelopeStruct(Schema.Literal(event), EventDataSchemas[event])

/** Normalized event envelope (SPEC §6.2), discriminated on `event`. */
export const Envelope = Schema.Union(
  EnvelopeFor("message.received"),
  EnvelopeFor("message.sent"),
  EnvelopeFor("message.delivered"),
  EnvelopeFor("message.read"),
  EnvelopeFor("message.failed"),
  EnvelopeFor("message.echo"),
  EnvelopeFor("conversation.created"),
  EnvelopeFor("conversation.ended"),
  EnvelopeFor("conversation.inactive"),
  EnvelopeFor("channel.connected"),
  EnvelopeFor("channel.disconnected"),
  EnvelopeFor("template.status_changed")
).annotations({ identifier: "Envelope" })
export type Envelope = typeof Envelope.Type
export type EnvelopeOf<E extends EventType> = Extract<Envelope, { readonly event: E }>
export type EventData<E extends EventType> = EnvelopeOf<E>["data"]

/** Any envelope with an open `data` object: stores and replays envelopes verbatim. */
export const GenericEnvelope = envelopeStruct(Schema.String, JsonObject).annotations({
  identifier: "GenericEnvelope"
})
export type GenericEnvelope = typeof GenericEnvelope.Type

/** Envelope of an event type this version does not know yet (forward compatibility). */
export const UnknownEnvelope = envelopeStruct(
  Schema.String.pipe(
    Schema.filter((e) => !(EVENT_TYPES as ReadonlyArray<string>).includes(e) || "is a known event type")
  ),
  JsonObject
).annotations({ identifier: "UnknownEnvelope" })
export type UnknownEnvelope = typeof UnknownEnvelope.Type

/** Any envelope: a known one, fully typed, or one of a future event type. */
export const AnyEnvelope = Schema.Union(Envelope, UnknownEnvelope)
export type AnyEnvelope = typeof AnyEnvelope.Type

/** Batch body of a buffered subscription (SPEC §6.4). */
export const EnvelopeBatch = Schema.Struct({ events: Schema.Array(Envelope) }).annotations({
  identifier: "EnvelopeBatch"
})
export type EnvelopeBatch = typeof EnvelopeBatch.Type

/** A delivery body: a batch when it has a top-level `events` key, otherwise one envelope. */
export const DeliveryBody = Schema.Union(EnvelopeBatch, Envelope)
export type DeliveryBody = typeof DeliveryBody.Type
