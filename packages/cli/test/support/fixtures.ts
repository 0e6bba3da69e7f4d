export const sendResult = { channel_id: 7, message_id: "wamid.HBgLMTU1NTAwMDAwMDAVAgARGBI", type: "text" }
export const channel = { channel_id: 7, type: "chat", name: "Support line", status: "active", quality_rating: "GREEN", created_at: "2025-01-02T03:04:05Z" }
export const subscription = {
  id: 11,
  developer_account_id: 3,
  platform_channel_id: null,
  target_url: "https://example.com/webhooks",
  description: null,
  event_types: ["message.sent"],
  custom_headers: null,
  buffer_window_seconds: null,
  buffer_max_batch: null,
  inactivity_minutes: null,
  is_active: true,
  is_paused: false,
  paused_reason: null,
  failure_count: 0,
  last_delivery_at: null,
  created_at: "2025-01-02T03:04:05Z",
  updated_at: "2025-01-02T03:04:05Z"
}
export const envelope = {
  id: "evt_0123456789abcdef0123456789abcdef",
  event: "message.received",
  developer_account_id: 3,
  platform_channel_id: 7,
  occurred_at: "2025-01-02T03:04:05Z",
  api_version: "platform-v1",
  data: {
    message_id: 1,
    conversation_id: 2,
    peer_id: "15550001111",
    direction: "inbound",
    source: "contact",
    type: "text",
    text: "héllo ✓",
    has_media: false,
    media_id: null,
    status: null,
    meta_message_id: "wamid.in1"
  }
}
export const delivery = {
  id: 21,
  subscription_id: 11,
  developer_account_id: 3,
  platform_channel_id: 7,
  event_id: envelope.id,
  event_type: "message.sent",
  conversation_peer: "15550001111",
  status: "delivered",
  attempts: 1,
  next_retry_at: null,
  response_status: 200,
  response_body_snippet: "ok",
  created_at: "2025-01-02T03:04:05.000Z",
  delivered_at: "2025-01-02T03:04:05.250Z"
}
export const unauthorized = { detail: { code: "unauthorized", message: "API key missing, invalid, inactive or expired" } }
