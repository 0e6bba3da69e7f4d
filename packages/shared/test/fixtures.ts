export const ts = "2024-05-01T12:00:00Z"
export const evtId = "evt_0123456789abcdef0123456789abcdef"

export const textHeader = { type: "HEADER", format: "TEXT", text: "Order {{1}}", example: { header_text: ["42"] } }
export const imageHeader = { type: "HEADER", format: "IMAGE", example: { header_handle: ["4::aW1hZ2U="] } }
export const locationHeader = { type: "HEADER", format: "LOCATION" }
export const body = { type: "BODY", text: "Hi {{1}}", example: { body_text: [["Ann"]] } }
export const namedBody = {
  type: "BODY",
  text: "Hi {{first_name}}",
  example: { body_text_named_params: [{ param_name: "first_name", example: "Ann" }] }
}
export const footer = { type: "FOOTER", text: "Reply STOP to opt out" }
export const buttons = {
  type: "BUTTONS",
  buttons: [
    { type: "QUICK_REPLY", text: "Yes" },
    { type: "URL", text: "Track", url: "https://example.com/t/{{1}}", example: ["https://example.com/t/123"] },
    { type: "PHONE_NUMBER", text: "Call", phone_number: "+15550100" },
    { type: "COPY_CODE", example: "SAVE10" },
    { type: "CATALOG", text: "View catalog", thumbnail_product_retailer_id: "sku-1" }
  ]
}
export const card = { components: [imageHeader, { type: "BODY", text: "Card" }, { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Buy" }] }] }
export const carousel = { type: "CAROUSEL", cards: [card, card] }
export const authComponents = [
  { type: "BODY", add_security_recommendation: true },
  { type: "FOOTER", code_expiration_minutes: 10 },
  {
    type: "BUTTONS",
    buttons: [
      {
        type: "OTP",
        otp_type: "ONE_TAP",
        text: "Copy code",
        autofill_text: "Autofill",
        supported_apps: [{ package_name: "com.example.app", signature_hash: "K8a/AINcGX7" }],
        zero_tap_terms_accepted: true
      }
    ]
  }
]

export const templateCreate = {
  channel_id: 1,
  name: "order_update",
  language_code: "en_US",
  category: "utility",
  components: [textHeader, body, footer, buttons],
  parameter_format: "POSITIONAL"
}

export const template = {
  id: 7,
  name: "order_update",
  language_code: "en_US",
  category: "utility",
  body_text: "Hi {{1}}",
  variables: ["name"],
  components: [textHeader, body, footer, buttons, carousel],
  parameter_format: "POSITIONAL",
  header_format: "TEXT",
  is_active: true,
  platform_channel_id: 1,
  meta_status: "approved",
  meta_category: "UTILITY",
  meta_template_id: "1234567890",
  meta_rejection_reason: null,
  created_at: ts
}

export const messageData = {
  message_id: 1,
  conversation_id: 2,
  peer_id: "15550100",
  direction: "outbound",
  source: "api",
  type: "text",
  text: "hello",
  has_media: false,
  media_id: null,
  status: "sent",
  meta_message_id: "wamid.HBgL"
}

export const envelope = (event: string, data: unknown) => ({
  id: evtId,
  event,
  developer_account_id: 3,
  platform_channel_id: 1,
  occurred_at: ts,
  api_version: "platform-v1",
  data
})

export const conversationData = {
  conversation_id: 2,
  peer_id: "15550100",
  status: "active",
  message_count: 3,
  last_active_at: ts
}
export const channelData = { channel_id: 1, channel_type: "chat", meta_identifier_suffix: "0100" }
export const templateData = {
  template_id: 7,
  name: "order_update",
  language_code: "en_US",
  previous_status: "pending",
  status: "approved",
  meta_template_id: "1234567890",
  rejection_reason: null
}

export const subscription = {
  id: 1,
  developer_account_id: 3,
  platform_channel_id: null,
  target_url: "https://hooks.example.com/platform",
  description: "all events",
  event_types: [],
  custom_headers: { "X-Team": "ops" },
  buffer_window_seconds: null,
  buffer_max_batch: null,
  inactivity_minutes: 30,
  is_active: true,
  is_paused: false,
  paused_reason: null,
  failure_count: 0,
  last_delivery_at: null,
  created_at: ts,
  updated_at: ts,
  secret: "whsec_abc"
}

export const subscriptionCreate = {
  target_url: "https://hooks.example.com/platform",
  event_types: ["message.received", "message.sent"],
  platform_channel_id: 1,
  description: "inbound",
  custom_headers: { "X-Team": "ops" },
  buffer_window_seconds: 5,
  buffer_max_batch: 50,
  inactivity_minutes: null,
  is_active: true
}
