import { Schema } from "effect"
import { Id, Timestamp, optional } from "./common.js"
import { GenericEnvelope } from "./events.js"
import { Page, ListQueryFields } from "./pagination.js"
import { BooleanParam, IntegerParam } from "./param.js"

export const DeliveryStatus = Schema.Literal("pending", "delivering", "delivered", "failed").annotations({
  identifier: "DeliveryStatus"
})
export type DeliveryStatus = typeof DeliveryStatus.Type

const LAST_ERROR_DESCRIPTION = "Why the last attempt failed: `HTTP <status>` for an answer that was not 2xx, otherwise " +
  "the reason no answer came (connection refused, timed out, TLS, refused by the SSRF guard); null once delivered " +
  "and before the first attempt."

/** What a delivery carried, verbatim: one envelope, or a buffered batch `{events: [...]}`. */
export const DeliveredPayload = Schema.Union(Schema.Struct({ events: Schema.Array(GenericEnvelope) }), GenericEnvelope)

/** Normalized event delivery (SPEC §2.6); `envelope` only with include=full_envelope. */
export const EventDelivery = Schema.Struct({
  id: Id,
  subscription_id: Id,
  developer_account_id: Id,
  platform_channel_id: optional(Schema.NullOr(Id)),
  event_id: Schema.String,
  event_type: Schema.String,
  conversation_peer: optional(Schema.NullOr(Schema.String)),
  status: DeliveryStatus,
  attempts: Schema.Int,
  next_retry_at: optional(Schema.NullOr(Timestamp)),
  response_status: optional(Schema.NullOr(Schema.Int)),
  response_body_snippet: optional(Schema.NullOr(Schema.String)),
  latency_ms: optional(Schema.NullOr(Schema.Int).annotations({
    description: "How long the receiver took to answer the last attempt (or to fail it), in milliseconds."
  })),
  last_error: optional(Schema.NullOr(Schema.String).annotations({ description: LAST_ERROR_DESCRIPTION })),
  created_at: optional(Timestamp),
  delivered_at: optional(Schema.NullOr(Timestamp)),
  last_attempt_at: optional(Schema.NullOr(Timestamp).annotations({
    description: "When the last attempt was made (its outcome recorded), whatever it led to: delivered, a retry " +
      "scheduled, or failed for good; null before the first attempt. A delivered delivery's is its delivered_at."
  })),
  envelope: optional(DeliveredPayload)
}).annotations({ identifier: "EventDelivery" })
export type EventDelivery = typeof EventDelivery.Type

/** Raw-forward delivery row (mode=meta); its body is the upstream JSON, not shown in lists. */
export const RawForwardDelivery = Schema.Struct({
  id: Id,
  platform_channel_id: Id,
  status: DeliveryStatus,
  attempts: Schema.Int,
  next_retry_at: Schema.NullOr(Timestamp),
  response_status: Schema.NullOr(Schema.Int),
  response_body_snippet: Schema.NullOr(Schema.String),
  last_error: optional(Schema.NullOr(Schema.String).annotations({ description: LAST_ERROR_DESCRIPTION })),
  created_at: Timestamp,
  delivered_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "RawForwardDelivery" })
export type RawForwardDelivery = typeof RawForwardDelivery.Type

export const DeliveryMode = Schema.Literal("native", "meta")
export type DeliveryMode = typeof DeliveryMode.Type

/** Query of GET /webhooks/deliveries (SPEC §4.6). */
export const DeliveryListQuery = Schema.Struct({
  ...ListQueryFields,
  mode: Schema.optionalWith(
    DeliveryMode.annotations({ description: "`native`: normalized event deliveries (default); `meta`: raw-forward deliveries." }),
    { default: () => "native" as const }
  ),
  subscription_id: optional(IntegerParam("Only deliveries of this subscription (native).")),
  channel_id: optional(IntegerParam("Only deliveries of this channel.")),
  status: optional(Schema.String.annotations({ description: "Only deliveries in this state: pending, delivering, delivered or failed." })),
  event_type: optional(Schema.String.annotations({ description: "Only deliveries of this event type (native)." })),
  errors_only: optional(BooleanParam("`true`: only failed deliveries (the same as status=failed; combined with another status, none)."))
})
export type DeliveryListQuery = typeof DeliveryListQuery.Type

/** GET /webhooks/deliveries result: the list envelope plus `mode`. */
export const DeliveryList = Schema.Union(
  Schema.Struct({ mode: Schema.Literal("native"), ...Page(EventDelivery).fields }),
  Schema.Struct({ mode: Schema.Literal("meta"), ...Page(RawForwardDelivery).fields })
).annotations({ identifier: "DeliveryList" })
export type DeliveryList = typeof DeliveryList.Type

/** Query of GET /webhooks/deliveries/{id}. */
export const DeliveryDetailQuery = Schema.Struct({
  // The description sits on the parameter, not on the literal: a literal's description replaces `"full_envelope"`
  // in the 422 message ("Expected <description>, actual ...").
  include: optional(Schema.Literal("full_envelope")).annotations({
    description: "`full_envelope` adds `envelope`: the payload exactly as delivered (one envelope, or a batch `{events: [...]}`)."
  })
})
export type DeliveryDetailQuery = typeof DeliveryDetailQuery.Type

