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
