import { Schema } from "effect"
import { Id, Label, Timestamp, maxChars, optional, requestBody } from "./common.js"
import { EventType } from "./events.js"
import {
  BUFFER_MAX_BATCH_MAX,
  BUFFER_MAX_BATCH_MIN,
  BUFFER_WINDOW_SECONDS_MAX,
  BUFFER_WINDOW_SECONDS_MIN,
  CUSTOM_HEADERS_MAX_BYTES,
  INACTIVITY_MINUTES_MAX,
  INACTIVITY_MINUTES_MIN,
  SUBSCRIPTION_DESCRIPTION_MAX,
  TARGET_URL_MAX,
  TARGET_URL_MIN
} from "./limits.js"

const intBetween = (min: number, max: number) =>
  Schema.Int.pipe(Schema.between(min, max, { message: () => `must be an integer between ${min} and ${max}` }))

export const CustomHeaders = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
  // What a 422 says is expected ("Expected <title>, actual ..."); without it, the whole description.
  title: "an object of header names to string values",
  description: "Headers sent with every delivery. Names are HTTP tokens, each once (case-insensitively); values " +
    "visible ASCII, Latin-1, spaces and " +
    `tabs; ${CUSTOM_HEADERS_MAX_BYTES} bytes in all. Reserved names (the signature headers, Content-Type, ` +
    "Authorization) are dropped case-insensitively."
})

/** Subscription resource (SPEC §2.5), as read, listed, updated and resumed: without its secret. */
export const WebhookSubscription = Schema.Struct({
  id: Id,
  developer_account_id: Id,
  platform_channel_id: Schema.NullOr(Id),
  target_url: Schema.String,
  description: Schema.NullOr(Schema.String),
  event_types: Schema.Array(Schema.String),
  custom_headers: Schema.NullOr(CustomHeaders),
  buffer_window_seconds: Schema.NullOr(Schema.Int),
  buffer_max_batch: Schema.NullOr(Schema.Int),
  inactivity_minutes: Schema.NullOr(Schema.Int),
  is_active: Schema.Boolean,
  is_paused: Schema.Boolean,
  paused_reason: Schema.NullOr(Schema.String),
  failure_count: Schema.Int,
  last_delivery_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "WebhookSubscription" })
export type WebhookSubscription = typeof WebhookSubscription.Type

/** The subscription as create and rotate-secret answer it: with its signing `secret`, shown this once. */
export const WebhookSubscriptionWithSecret = Schema.Struct({
  ...WebhookSubscription.fields,
  secret: Schema.String.annotations({ description: "The signing secret (`whsec_...`), shown this once." })
}).annotations({ identifier: "WebhookSubscriptionWithSecret" })
export type WebhookSubscriptionWithSecret = typeof WebhookSubscriptionWithSecret.Type

export const TargetUrl = Schema.String.pipe(
  Schema.minLength(TARGET_URL_MIN, { message: () => `must be ${TARGET_URL_MIN} to ${TARGET_URL_MAX} characters` }),
  maxChars(TARGET_URL_MAX, () => `must be ${TARGET_URL_MIN} to ${TARGET_URL_MAX} characters`),
  Schema.filter((s) => {
    try {
      new URL(s)
      return true
    } catch {
      return "must be an absolute URL"
    }
  })
)

const subscriptionFields = {
  target_url: TargetUrl,
  event_types: optional(Schema.Array(EventType)),
  platform_channel_id: optional(Schema.NullOr(Id)),
  // null clears, as for the other nullable fields of the resource (so a blank string is not a second way to)
  description: optional(Schema.NullOr(Label(SUBSCRIPTION_DESCRIPTION_MAX))),
  custom_headers: optional(Schema.NullOr(CustomHeaders)),
  buffer_window_seconds: optional(Schema.NullOr(intBetween(BUFFER_WINDOW_SECONDS_MIN, BUFFER_WINDOW_SECONDS_MAX))),
  buffer_max_batch: optional(Schema.NullOr(intBetween(BUFFER_MAX_BATCH_MIN, BUFFER_MAX_BATCH_MAX))),
  inactivity_minutes: optional(Schema.NullOr(intBetween(INACTIVITY_MINUTES_MIN, INACTIVITY_MINUTES_MAX))),
  is_active: optional(Schema.Boolean)
}

/** POST /webhooks/subscriptions (SPEC §4.5); is_active defaults to true on the server. */
export const WebhookSubscriptionCreate = requestBody(
  Schema.Struct(subscriptionFields),
  "WebhookSubscriptionCreate"
)
export type WebhookSubscriptionCreate = typeof WebhookSubscriptionCreate.Type

/** PATCH /webhooks/subscriptions/{id}: the create fields, all optional. */
export const WebhookSubscriptionPatch = requestBody(
  Schema.Struct({ ...subscriptionFields, target_url: optional(TargetUrl) }),
  "WebhookSubscriptionPatch"
)
export type WebhookSubscriptionPatch = typeof WebhookSubscriptionPatch.Type

/** Query of POST /webhooks/subscriptions/{id}/test. */
export const SubscriptionTestQuery = Schema.Struct({
  event_type: optional(Schema.Literal(...EventType.literals).annotations({
    description: "The sample's event type: one the subscription receives (else 422 event_not_configured). " +
      "Default: its first configured type, or message.sent for a catch-all."
  }))
})
export type SubscriptionTestQuery = typeof SubscriptionTestQuery.Type
