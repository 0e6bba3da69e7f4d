import type { BroadcastStatus, DeliveryStatus, RecipientStatus, Scope } from "@platform/shared"

/*
 * The shared package's lists, restated so the bundle does not pull in Effect; the
 * checks below fail the type check when the shared vocabulary gains or loses a word.
 */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never
const exact = <A, B>(_: Exactly<A, B>) => undefined

/** The 11 scopes of SPEC §5.3, in its order. */
export const SCOPES = [
  "send:messages", "manage:templates", "upload:media", "read:messages", "read:conversations", "read:contacts",
  "manage:data", "manage:webhooks", "manage:channels", "send:broadcasts", "read:channels"
] as const
exact<typeof SCOPES[number], Scope>(true)

/** The 12 event types of SPEC §6.1. */
export const EVENT_TYPES = [
  "message.received", "message.sent", "message.delivered", "message.read", "message.failed", "message.echo",
  "conversation.created", "conversation.ended", "conversation.inactive", "channel.connected", "channel.disconnected",
  "template.status_changed"
] as const
exact<typeof EVENT_TYPES[number], typeof import("@platform/shared").EVENT_TYPES[number]>(true)

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "failed"] as const
exact<typeof DELIVERY_STATUSES[number], DeliveryStatus>(true)

/** A broadcast's states (SPEC §3.3). */
export const BROADCAST_STATUSES = ["draft", "scheduled", "sending", "completed", "failed"] as const
exact<typeof BROADCAST_STATUSES[number], BroadcastStatus>(true)

/** A broadcast recipient's states, in the order a send goes through them. */
export const RECIPIENT_STATUSES = ["pending", "sent", "delivered", "read", "responded", "failed"] as const
exact<typeof RECIPIENT_STATUSES[number], RecipientStatus>(true)
/** The plans of SPEC §7, cheapest first, and their limits (the shared PLAN_LIMITS; a test compares the two). */
export const PLANS = ["free", "lite", "pro", "business"] as const
exact<typeof PLANS[number], import("@platform/shared").Plan>(true)

export const PLAN_LIMITS: { readonly [P in typeof PLANS[number]]: import("@platform/shared").PlanLimits } = {
  free: { inbound_messages_per_month: 1_000, template_messages_per_month: 250, channels: 1, broadcasts_enabled: false, broadcasts_per_month: 0, broadcast_recipients_limit: 0 },
  lite: { inbound_messages_per_month: 10_000, template_messages_per_month: 2_500, channels: 3, broadcasts_enabled: true, broadcasts_per_month: 20, broadcast_recipients_limit: 1_000 },
  pro: { inbound_messages_per_month: 100_000, template_messages_per_month: 25_000, channels: 10, broadcasts_enabled: true, broadcasts_per_month: 100, broadcast_recipients_limit: 10_000 },
  business: { inbound_messages_per_month: 1_000_000, template_messages_per_month: 250_000, channels: 50, broadcasts_enabled: true, broadcasts_per_month: 1_000, broadcast_recipients_limit: 100_000 }
}

/** A team member's roles (owner, admin, developer). */
export const ROLES = ["owner", "admin", "developer"] as const
exact<typeof ROLES[number], import("@platform/shared").Role>(true)

/** The event types the live stream carries: all but conversation.inactive, which only subscriptions get. */
export const STREAM_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== "conversation.inactive")

/** The stream's first message when its Last-Event-ID was not found (the shared LAST_EVENT_ID_NOT_FOUND). */
export const LAST_EVENT_ID_NOT_FOUND = "last_event_id_not_found"
exact<typeof LAST_EVENT_ID_NOT_FOUND, typeof import("@platform/shared").LAST_EVENT_ID_NOT_FOUND>(true)
/** The message types of SPEC §4.1, for the messages filter. */
export const MESSAGE_TYPES = [
  "text", "template", "image", "video", "audio", "document", "sticker", "interactive", "location", "contacts", "reaction",
  "typing", "catalog"
] as const
exact<typeof MESSAGE_TYPES[number], typeof import("@platform/shared").MessageTypes[number]>(true)

/** An outbound message's status (SPEC §3.7); inbound messages have none. */
export const MESSAGE_STATUSES = ["sent", "delivered", "read", "failed"] as const

export const CONVERSATION_STATUSES = ["active", "ended"] as const
exact<typeof CONVERSATION_STATUSES[number], import("@platform/shared").ConversationStatus>(true)
