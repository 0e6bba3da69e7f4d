import { describe, expect, it } from "@effect/vitest"
import type { Schema } from "effect"
import * as S from "@platform/shared"
import * as F from "./fixtures.js"
import { roundTrip } from "./helpers.js"

const media = { link: "https://cdn.example.com/a.jpg", caption: "look" }
const send = (fields: object) => ({ channel_id: 1, to: "15550100", ...fields })

const cases: ReadonlyArray<readonly [string, Schema.Schema<any, any>, unknown]> = [
  ["Template", S.Template, F.template],
  ["Template with null optionals", S.Template, { ...F.template, components: null, parameter_format: null }],
  ["TemplateCreate (components)", S.TemplateCreate, F.templateCreate],
  ["TemplateCreate (legacy)", S.TemplateCreate, {
    channel_id: 1,
    name: "hello",
    language_code: "en",
    category: "marketing",
    body_text: "Hi {{1}}",
    variables: ["name"]
  }],
  ["TemplateCreate (authentication)", S.TemplateCreate, {
    channel_id: 1,
    name: "otp",
    language_code: "en",
    category: "authentication",
    components: F.authComponents
  }],
  ["TemplateCreate (carousel, named)", S.TemplateCreate, {
    channel_id: 1,
    name: "promo",
    language_code: "en",
    category: "marketing",
    parameter_format: "NAMED",
    components: [F.namedBody, F.carousel]
  }],
  ["TemplateCreate (location header)", S.TemplateCreate, { ...F.templateCreate, components: [F.locationHeader, F.body] }],
  ["TemplatePatch", S.TemplatePatch, { category: "marketing", components: [F.imageHeader, F.body] }],
  ["TemplatePatch (legacy fields)", S.TemplatePatch, { body_text: "x", variables: [] }],
  ["TemplateSync", S.TemplateSync, { channel_id: 1 }],
  ["TemplateSyncResult", S.TemplateSyncResult, { imported: 1, updated: 2, skipped: 3, total: 6 }],
  ["HeaderMediaResult", S.HeaderMediaResult, { handle: "4::aW1hZ2U=" }],
  ["Conversation", S.Conversation, {
    id: 1,
    platform_channel_id: 1,
    platform_contact_id: null,
    peer_id: "15550100",
    status: "ended",
    created_at: F.ts,
    ended_at: "2024-05-02T08:00:00.123+02:00",
    last_active_at: F.ts,
    last_message_direction: "inbound",
    last_message_preview: "hi",
    message_count: 2,
    inbound_count: 1,
    outbound_count: 1
  }],
  ["ConversationPatch", S.ConversationPatch, { status: "ended" }],
  ["Contact", S.Contact, {
    id: 1,
    platform_channel_id: 1,
    chat_id: "15550100",
    social_id: null,
    business_scoped_user_id: null,
    phone: "+15550100",
    username: null,
    profile_name: "Ann",
    display_name: null,
    contact_metadata: { tier: "gold", tags: ["a"] },
    first_seen_at: F.ts,
    last_seen_at: F.ts,
    created_at: F.ts
  }],
  ["ContactPatch", S.ContactPatch, { contact_metadata: { nested: { any: [1, 2] } }, display_name: "x".repeat(255) }],
  ["SendMessage text", S.SendMessage, send({ type: "text", text: "hi", preview_url: true, context: { message_id: "wamid.1" } })],
  ["SendMessage template", S.SendMessage, send({
    type: "template",
    template_name: "order_update",
    language_code: "en_US",
    components: [
      { type: "header", parameters: [{ type: "image", image: { link: "https://cdn.example.com/a.jpg" } }] },
      {
        type: "body",
        parameters: [
          { type: "text", text: "Ann" },
          { type: "currency", currency: { fallback_value: "$10", code: "USD", amount_1000: 10000 } },
          { type: "date_time", date_time: { fallback_value: "May 1" } }
        ]
      },
      { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: "yes" }] },
      { type: "button", sub_type: "url", index: "1", parameters: [{ type: "text", text: "123" }] },
      { type: "button", sub_type: "copy_code", index: "2", parameters: [{ type: "coupon_code", coupon_code: "SAVE10" }] },
      {
        type: "carousel",
        cards: [0, 1].map((card_index) => ({
          card_index,
          components: [
            { type: "header", parameters: [{ type: "video", video: { id: "media-1" } }] },
            { type: "body", parameters: [{ type: "text", text: "A", parameter_name: "item" }] }
          ]
        }))
      }
    ]
  })],
  ["SendMessage header document", S.SendMessage, send({
    type: "template",
    template_name: "t",
    language_code: "en",
    components: [{ type: "header", parameters: [{ type: "document", document: { id: "m1", filename: "a.pdf" } }] }]
  })],
  ["SendMessage header location", S.SendMessage, send({
    type: "template",
    template_name: "t",
    language_code: "en",
    components: [{ type: "header", parameters: [{ type: "location", location: { latitude: 1.5, longitude: 2.5, name: "HQ" } }] }]
  })],
  ["SendMessage image", S.SendMessage, send({ type: "image", media })],
  ["SendMessage video", S.SendMessage, send({ type: "video", media: { id: "m1" } })],
  ["SendMessage audio", S.SendMessage, send({ type: "audio", media: { id: "m1", voice: true } })],
  ["SendMessage document", S.SendMessage, send({ type: "document", media: { link: "https://x/a.pdf", filename: "a.pdf", caption: "c" } })],
  ["SendMessage sticker", S.SendMessage, send({ type: "sticker", media: { id: "m1" } })],
  ["SendMessage interactive", S.SendMessage, send({ type: "interactive", interactive: { type: "button", action: { buttons: [] } } })],
  ["SendMessage location", S.SendMessage, send({ type: "location", location: { latitude: 52.5, longitude: 13.4, address: "Berlin" } })],
  ["SendMessage contacts", S.SendMessage, send({ type: "contacts", contacts: [{ name: { formatted_name: "Ann" } }] })],
  ["SendMessage reaction", S.SendMessage, send({ type: "reaction", reaction: { message_id: "wamid.1", emoji: "👍" } })],
  ["SendMessage typing", S.SendMessage, send({ type: "typing" })],
  ["SendMessage catalog", S.SendMessage, send({ type: "catalog", interactive: { type: "catalog_message" } })],
  ["SendResult", S.SendResult, { channel_id: 1, message_id: "wamid.1", type: "text" }],
  ["MarkRead", S.MarkRead, { channel_id: 1, message_id: "x".repeat(255) }],
  ["MarkReadResult", S.MarkReadResult, { message_id: "wamid.1", status: "read" }],
  ["Message", S.Message, {
    id: 1,
    platform_channel_id: 1,
    conversation_id: 2,
    contact_id: null,
    direction: "inbound",
    source: "contact",
    type: "image",
    text: null,
    payload: { image: { id: "m1" } },
    media_id: "m1",
    status: null,
    meta_message_id: "wamid.1",
    error: null,
    created_at: F.ts,
    status_updated_at: null
  }],
  ["MediaUploadResult", S.MediaUploadResult, { channel_id: 1, media_id: "m1" }],
  ["MediaUrlResult", S.MediaUrlResult, { channel_id: 1, url: "https://x/m1", mime_type: "image/jpeg", file_size: 1024 }],
  ["MediaFromUrl", S.MediaFromUrl, { channel_id: 1, url: "https://x/a.jpg", mime_type: "image/jpeg" }],
  ["MediaChannelQuery", S.MediaChannelQuery, { channel_id: "12" }],
  ["MediaDeleteResult", S.MediaDeleteResult, { deleted: true }],
  ["WebhookSubscription", S.WebhookSubscription, (({ secret: _secret, ...read }) => read)(F.subscription)],
  ["WebhookSubscriptionWithSecret", S.WebhookSubscriptionWithSecret, F.subscription],
  ["WebhookSubscriptionCreate", S.WebhookSubscriptionCreate, F.subscriptionCreate],
  ["WebhookSubscriptionPatch", S.WebhookSubscriptionPatch, { is_active: false, buffer_window_seconds: null }],
  ["SubscriptionTestQuery", S.SubscriptionTestQuery, { event_type: "message.received" }],
  ["EventDelivery", S.EventDelivery, {
    id: 9,
    subscription_id: 1,
    developer_account_id: 3,
    platform_channel_id: 1,
    event_id: F.evtId,
    event_type: "message.sent",
    conversation_peer: "15550100",
    status: "failed",
    attempts: 5,
    next_retry_at: null,
    response_status: 500,
    response_body_snippet: "oops",
    created_at: F.ts,
    delivered_at: null,
    envelope: F.envelope("message.sent", { ...F.messageData, _test: true, extra: "kept" })
  }],
  ["EventDelivery with batch envelope", S.EventDelivery, {
    id: 9,
    subscription_id: 1,
    developer_account_id: 3,
    event_id: F.evtId,
    event_type: "message.sent",
    status: "delivered",
    attempts: 1,
    envelope: { events: [F.envelope("message.sent", F.messageData), F.envelope("future.event", { x: 1 })] }
  }],
  ["RawForwardDelivery", S.RawForwardDelivery, {
    id: 1,
    platform_channel_id: 1,
    status: "pending",
    attempts: 0,
    next_retry_at: F.ts,
    response_status: null,
    response_body_snippet: null,
    created_at: F.ts,
    delivered_at: null
  }],
  ["DeliveryListQuery", S.DeliveryListQuery, {
    limit: "20",
    after: "c1",
    mode: "native",
    subscription_id: "1",
    status: "failed",
    errors_only: "true"
  }],
  ["DeliveryList", S.DeliveryList, { mode: "native", data: [], has_more: false, next_cursor: null }],
  ["DeliveryDetailQuery", S.DeliveryDetailQuery, { include: "full_envelope" }],
  ["Broadcast", S.Broadcast, {
    id: 1,
    name: "May promo",
    platform_channel_id: 1,
    template_name: "promo",
    language_code: "en",
    status: "scheduled",
    recipient_count: 2,
    scheduled_at: F.ts,
    started_at: null,
    completed_at: null,
    created_at: F.ts,
    updated_at: F.ts
  }],
  ["BroadcastCreate", S.BroadcastCreate, {
    name: "May promo",
    channel_id: 1,
    template_name: "promo",
    language_code: "en",
    components: [{ type: "body", parameters: [{ type: "text", text: "x" }] }]
  }],
  ["BroadcastRecipientsLoad", S.BroadcastRecipientsLoad, {
    recipients: Array.from({ length: 1000 }, (_, i) => ({ to: `1555${i}` }))
  }],
  ["BroadcastRecipientsLoadResult", S.BroadcastRecipientsLoadResult, { added: 2, skipped: 1, recipient_count: 2 }],
  ["BroadcastSchedule", S.BroadcastSchedule, { scheduled_at: F.ts }],
  ["BroadcastRecipientsPage", S.BroadcastRecipientsPage, {
    data: [{ id: 1, to: "1555", status: "responded", message_id: "wamid.1", error: null, updated_at: F.ts }],
    has_more: true,
    next_cursor: "c2",
    counts: { pending: 0, sent: 0, delivered: 0, read: 0, responded: 1, failed: 0 }
  }],
  ["Channel", S.Channel, {
    channel_id: 1,
    type: "chat",
    name: "Support",
    display_phone_number: "+1 555 0100",
    meta_identifier_suffix: "0100",
    status: "active",
    inbound_enabled: true,
    quality_rating: "GREEN",
    created_at: F.ts
  }],
  ["ChannelProfileUpdate", S.ChannelProfileUpdate, {
    about: "a".repeat(139),
    address: "b".repeat(256),
    description: "c".repeat(256),
    email: "d".repeat(128),
    profile_picture_handle: "h",
    vertical: "RETAIL",
    websites: ["https://a", "https://b"]
  }],
  ["BlockUsers", S.BlockUsers, { users: ["15550100"] }],
  ["TwoFactor", S.TwoFactor, { pin: "123456" }],
  ["InboundSwitch", S.InboundSwitch, { enabled: false }],
  ["ApiKey", S.ApiKey, {
    id: 1,
    name: "ci",
    prefix: "pk_live_abcd",
    scopes: ["send:messages", "read:channels"],
    is_active: true,
    expires_at: null,
    last_used_at: F.ts,
    rate_limit_per_minute: 60,
    created_at: F.ts
  }],
  ["ApiKeyCreated", S.ApiKeyCreated, {
    id: 1,
    name: "ci",
    prefix: "pk_live_abcd",
    scopes: [...S.Scopes],
    is_active: true,
    expires_at: F.ts,
    last_used_at: null,
    rate_limit_per_minute: 120,
    created_at: F.ts,
    key: "pk_live_" + "aB3".repeat(11)
  }],
  ["ApiKeyCreate", S.ApiKeyCreate, { name: "ci", scopes: ["read:messages"], expires_at: F.ts, rate_limit_per_minute: 30 }],
  ["ApiKeyPatch", S.ApiKeyPatch, { is_active: false, rate_limit_per_minute: 10 }],
  ["ListQuery", S.ListQuery, { limit: "200", before: "c0" }],
  ["Page", S.Page(S.SendResult), { data: [{ channel_id: 1, message_id: "m", type: "text" }], has_more: false, next_cursor: null }],
  ...S.EVENT_TYPES.map((event) => {
    const data = event.startsWith("message.")
      ? event === "message.failed"
        ? {
          ...F.messageData,
          status: "failed",
          error: {
            error: "upstream_error",
            meta_code: 131026,
            meta_subcode: null,
            meta_title: "Undeliverable",
            message: "Message undeliverable",
            fbtrace_id: null
          }
        }
        : F.messageData
      : event.startsWith("conversation.")
      ? F.conversationData
      : event.startsWith("channel.")
      ? F.channelData
      : F.templateData
    return [`Envelope ${event}`, S.Envelope, F.envelope(event, data)] as const
  }),
  ["Envelope (test sample)", S.Envelope, F.envelope("channel.connected", { ...F.channelData, _test: true })],
  ["EnvelopeBatch", S.EnvelopeBatch, { events: [F.envelope("message.read", F.messageData), F.envelope("conversation.ended", F.conversationData)] }],
  ["DeliveryBody (single)", S.DeliveryBody, F.envelope("template.status_changed", F.templateData)],
  ["UnknownEnvelope", S.UnknownEnvelope, F.envelope("payment.captured", { amount: 1 })],
  ["GenericEnvelope", S.GenericEnvelope, F.envelope("message.sent", { anything: true })],
  ["AnyEnvelope (future type)", S.AnyEnvelope, F.envelope("payment.captured", { amount: 1 })]
]

describe("round trip", () => {
  it.each(cases)("%s decodes and encodes back to the same JSON", (_name, schema, input) => {
    expect(roundTrip(schema, input)).toStrictEqual(input)
  })
})
