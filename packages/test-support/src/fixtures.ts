/** Wire bodies as the server sends them (each checked against its @platform/shared schema in packages/sdk/test/resources.test.ts). */
export const sendResult = { channel_id: 7, message_id: "wamid.HBgLMTU1NTAwMDAwMDAVAgARGBI", type: "text" }
export const markReadResult = { message_id: "wamid.inbound1", status: "read" }
export const mediaUpload = { channel_id: 7, media_id: "1234567890" }
export const mediaUrl = { channel_id: 7, url: "http://localhost:8080/platform/v1/media/1234567890/content?sig=abc", mime_type: "image/png", file_size: 2048 }
export const mediaDeleted = { deleted: true }
export const channel = {
  channel_id: 7,
  type: "chat",
  name: "Support line",
  display_phone_number: "+1 555 000 0000",
  status: "active",
  quality_rating: "GREEN",
  created_at: "2025-01-02T03:04:05Z"
}
export const channelHealth = {
  channel_id: 7,
  can_send_message: "LIMITED",
  entities: [
    { entity_type: "PHONE_NUMBER", can_send_message: "AVAILABLE", errors: [], additional_info: [] },
    {
      entity_type: "WABA",
      can_send_message: "LIMITED",
      errors: [{ error_code: 141006, error_description: "There is an error with the payment method.", possible_solution: "Update the payment method." }],
      additional_info: ["Your WhatsApp Business Account has reached its messaging limit."]
    }
  ]
}
export const channelProfile = {
  channel_id: 7,
  about: "Open 9 to 5",
  address: "1 Main St",
  description: null,
  email: "help@example.com",
  profile_picture_url: null,
  websites: ["https://example.com"],
  vertical: "RETAIL"
}
export const channelDisplayName = {
  channel_id: 7,
  verified_name: "Support line",
  display_phone_number: "+1 555 000 0000",
  name_status: "APPROVED",
  new_name_status: null
}
export const blockUsersResult = {
  channel_id: 7,
  succeeded: [{ user: "+1 555 000 1111", wa_id: "15550001111" }],
  failed: [{ user: "15550002222", errors: [{ code: 131047, message: "Re-engagement required: User has not messaged in the last 24 hours" }] }]
}
export const twoFactorResult = { channel_id: 7, two_factor_enabled: true }
export const conversation = {
  id: 31,
  platform_channel_id: 7,
  platform_contact_id: 41,
  peer_id: "15550001111",
  status: "ended",
  created_at: "2025-01-02T03:04:05Z",
  ended_at: "2025-01-02T04:00:00Z",
  last_active_at: "2025-01-02T03:59:00Z",
  last_message_direction: "inbound",
  last_message_preview: "Thanks!",
  message_count: 4,
  inbound_count: 2,
  outbound_count: 2
}
export const message = {
  id: 51,
  platform_channel_id: 7,
  conversation_id: 31,
  contact_id: 41,
  direction: "outbound",
  source: "api",
  type: "text",
  text: "Your order shipped",
  payload: { body: "Your order shipped" },
  media_id: null,
  status: "delivered",
  meta_message_id: "wamid.HBgLMTU1NTAwMDAwMDAVAgARGBI",
  error: null,
  created_at: "2025-01-02T03:04:05Z",
  status_updated_at: "2025-01-02T03:04:09Z"
}
export const contact = {
  id: 41,
  platform_channel_id: 7,
  chat_id: "15550001111",
  social_id: null,
  business_scoped_user_id: null,
  phone: "15550001111",
  username: null,
  profile_name: "Ada",
  display_name: "Ada Lovelace",
  contact_metadata: { crm_id: "C-42" },
  first_seen_at: "2025-01-02T03:04:05Z",
  last_seen_at: "2025-01-02T03:59:00Z",
  created_at: "2025-01-02T03:04:05Z"
}
export const contactDeleted = { id: 41, deleted: true }
export const subscription = {
  id: 11,
  developer_account_id: 3,
  platform_channel_id: null,
  target_url: "https://example.com/webhooks",
  description: "prod receiver",
  event_types: ["message.sent", "message.read"],
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
export const subscriptionWithSecret = { ...subscription, secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==" }
export const envelope = {
  id: "evt_0123456789abcdef0123456789abcdef",
  event: "message.sent",
  developer_account_id: 3,
  platform_channel_id: 7,
  occurred_at: "2025-01-02T03:04:05Z",
  api_version: "platform-v1",
  data: {
    message_id: 1,
    conversation_id: 2,
    peer_id: "15550001111",
    direction: "outbound",
    source: "api",
    type: "text",
    text: "hello",
    has_media: false,
    media_id: null,
    status: "sent",
    meta_message_id: "wamid.HBgLMTU1NTAwMDAwMDAVAgARGBI"
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
  created_at: "2025-01-02T03:04:05Z",
  delivered_at: "2025-01-02T03:04:06Z"
}
export const rawDelivery = {
  id: 5,
  platform_channel_id: 7,
  status: "failed",
  attempts: 5,
  next_retry_at: null,
  response_status: 500,
  response_body_snippet: "boom",
  created_at: "2025-01-02T03:04:05Z",
  delivered_at: null
}
export const broadcast = {
  id: 51,
  name: "May promo",
  platform_channel_id: 7,
  template_name: "may_promo",
  language_code: "en_US",
  status: "draft",
  recipient_count: 2,
  scheduled_at: null,
  started_at: null,
  completed_at: null,
  created_at: "2025-05-01T09:00:00.000Z",
  updated_at: "2025-05-01T09:05:00.000Z"
}
export const broadcastRecipientsResult = { added: 2, skipped: 1, recipient_count: 2 }
export const broadcastRecipient = {
  id: 61,
  to: "15550001111",
  status: "read",
  message_id: "wamid.HBgLMTU1NTAwMDAwMDAVAgARGBI",
  error: null,
  updated_at: "2025-05-01T10:00:00.000Z"
}
export const broadcastRecipientCounts = { pending: 0, sent: 0, delivered: 0, read: 1, responded: 0, failed: 1 }
export const template = {
  id: 51,
  name: "order_update",
  language_code: "en_US",
  category: "utility",
  body_text: "Order {{1}} has shipped",
  variables: ["A-17"],
  components: [{ type: "BODY", text: "Order {{1}} has shipped", example: { body_text: [["A-17"]] } }],
  parameter_format: "POSITIONAL",
  header_format: null,
  is_active: true,
  platform_channel_id: 7,
  meta_status: "pending",
  meta_category: "utility",
  meta_template_id: "594425479261596",
  meta_rejection_reason: null,
  created_at: "2025-01-02T03:04:05.000Z"
}
export const templateSync = { imported: 2, updated: 1, skipped: 3, total: 6 }
export const headerMedia = { handle: "4::aW1hZ2UvcG5n:ARYQ9aYgMmo0c_sample" }
