import * as wire from "@platform/test-support/fixtures"

// The shared wire bodies (@platform/test-support), changed only where the CLI's output
// tests rely on it: an inbound `message.received` with non-ASCII text (`listen` forwards
// the raw bytes, `events tail` prints the text), a delivery that took 250 ms (latency in
// `deliveries tail`), a subscription without a description, a channel without a phone
// number (the table's name column falls back to it).
export {
  blockUsersResult,
  broadcast,
  broadcastRecipient,
  broadcastRecipientCounts,
  broadcastRecipientsResult,
  channelDisplayName,
  channelHealth,
  channelProfile,
  contact,
  contactDeleted,
  conversation,
  message,
  sendResult,
  template,
  twoFactorResult
} from "@platform/test-support/fixtures"
const { display_phone_number: _phone, ...channelWithoutPhone } = wire.channel
export const channel = channelWithoutPhone
export const subscription = { ...wire.subscription, description: null, event_types: ["message.sent"] }
export const envelope = {
  ...wire.envelope,
  event: "message.received",
  data: { ...wire.envelope.data, direction: "inbound", source: "contact", text: "héllo ✓", status: null, meta_message_id: "wamid.in1" }
}
export const delivery = { ...wire.delivery, created_at: "2025-01-02T03:04:05.000Z", delivered_at: "2025-01-02T03:04:05.250Z" }
export const unauthorized = { detail: { code: "unauthorized", message: "API key missing, invalid, inactive or expired: send a key of this account in the X-API-Key header" } }
