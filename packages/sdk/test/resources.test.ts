import { HttpApi } from "@effect/platform"
import {
  BlockUsersResult,
  Broadcast,
  BroadcastRecipientsLoadResult,
  BroadcastRecipientsPage,
  Channel,
  Contact,
  ContactDeleted,
  ChannelDisplayName,
  ChannelHealth,
  ChannelProfile,
  Conversation,
  EventDelivery,
  Envelope,
  MarkReadResult,
  MediaDeleteResult,
  MediaUploadResult,
  MediaUrlResult,
  Message,
  PlatformApi,
  RawForwardDelivery,
  SendMessage,
  SendResult,
  TwoFactorResult,
  HeaderMediaResult,
  Template,
  TemplateSyncResult,
  WebhookSubscription,
  WebhookSubscriptionWithSecret
} from "@platform/shared"
import * as f from "@platform/test-support/fixtures"
import { BASE_URL, mockApi, type Reply } from "@platform/test-support/mock-api"
import { Option, Schema, SchemaAST } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { APIConnectionTimeoutError, isKnownEvent, MediaFileError, Platform, PlatformError } from "../src/index.js"

const api = mockApi()
const client = () => new Platform({ apiKey: "pk_test_key", baseUrl: BASE_URL, maxRetries: 0 })

type Method = "get" | "post" | "patch" | "delete"

interface Case {
  readonly name: string
  readonly route: readonly [Method, string]
  readonly reply: Reply
  readonly call: (c: Platform) => Promise<unknown>
  readonly method: string
  readonly path: string
  readonly query?: Record<string, string>
  readonly body?: unknown
  readonly result: unknown
}

const sendTo = { channel_id: 7, to: "15550001111" }

const helperCases: ReadonlyArray<readonly [string, (c: Platform) => Promise<unknown>, Record<string, unknown>]> = [
  ["sendText", (c) => c.messages.sendText({ ...sendTo, text: "hi", preview_url: true }), { type: "text", text: "hi", preview_url: true }],
  [
    "sendTemplate",
    (c) =>
      c.messages.sendTemplate({
        ...sendTo,
        template_name: "order_update",
        language_code: "en_US",
        components: [{ type: "button", sub_type: "quick_reply", index: 0, parameters: [{ type: "payload", payload: "yes" }] }]
      }),
    {
      type: "template",
      template_name: "order_update",
      language_code: "en_US",
      components: [{ type: "button", sub_type: "quick_reply", index: 0, parameters: [{ type: "payload", payload: "yes" }] }]
    }
  ],
  ["sendImage", (c) => c.messages.sendImage({ ...sendTo, media: { link: "https://x.test/a.png", caption: "a" } }), { type: "image", media: { link: "https://x.test/a.png", caption: "a" } }],
  ["sendVideo", (c) => c.messages.sendVideo({ ...sendTo, media: { id: "m1" } }), { type: "video", media: { id: "m1" } }],
  ["sendAudio", (c) => c.messages.sendAudio({ ...sendTo, media: { id: "m2", voice: true } }), { type: "audio", media: { id: "m2", voice: true } }],
  [
    "sendDocument",
    (c) => c.messages.sendDocument({ ...sendTo, media: { link: "https://x.test/a.pdf", filename: "a.pdf" } }),
    { type: "document", media: { link: "https://x.test/a.pdf", filename: "a.pdf" } }
  ],
  ["sendSticker", (c) => c.messages.sendSticker({ ...sendTo, media: { id: "s1" } }), { type: "sticker", media: { id: "s1" } }],
  ["sendInteractive", (c) => c.messages.sendInteractive({ ...sendTo, interactive: { type: "button" } }), { type: "interactive", interactive: { type: "button" } }],
  ["sendLocation", (c) => c.messages.sendLocation({ ...sendTo, location: { latitude: 1.5, longitude: 2.5, name: "HQ" } }), { type: "location", location: { latitude: 1.5, longitude: 2.5, name: "HQ" } }],
  ["sendContacts", (c) => c.messages.sendContacts({ ...sendTo, contacts: [{ name: { formatted_name: "Ann" } }] }), { type: "contacts", contacts: [{ name: { formatted_name: "Ann" } }] }],
  ["sendReaction", (c) => c.messages.sendReaction({ ...sendTo, reaction: { message_id: "wamid.1", emoji: "👍" } }), { type: "reaction", reaction: { message_id: "wamid.1", emoji: "👍" } }],
  ["sendTyping", (c) => c.messages.sendTyping({ ...sendTo }), { type: "typing" }],
  ["sendCatalog", (c) => c.messages.sendCatalog({ ...sendTo, interactive: { type: "catalog_message" } }), { type: "catalog", interactive: { type: "catalog_message" } }]
]

const subs = "/platform/v1/webhooks/subscriptions"
const bcs = "/platform/v1/broadcasts"
const dels = "/platform/v1/webhooks/deliveries"
const page = <T>(data: ReadonlyArray<T>) => ({ data, has_more: false, next_cursor: null })

const cases: ReadonlyArray<Case> = [
  {
    name: "messages.send POSTs the body to /platform/v1/messages",
    route: ["post", "/platform/v1/messages"],
    reply: { json: f.sendResult },
    call: (c) => c.messages.send({ ...sendTo, type: "text", text: "hello", context: { message_id: "wamid.prev" } }),
    method: "POST",
    path: "/platform/v1/messages",
    body: { ...sendTo, type: "text", text: "hello", context: { message_id: "wamid.prev" } },
    result: f.sendResult
  },
  ...helperCases.map(
    ([helper, call, body]): Case => ({
      name: `messages.${helper} POSTs type ${body.type as string} with its fields`,
      route: ["post", "/platform/v1/messages"],
      reply: { json: { ...f.sendResult, type: body.type } },
      call,
      method: "POST",
      path: "/platform/v1/messages",
      body: { ...sendTo, ...body },
      result: { ...f.sendResult, type: body.type }
    })
  ),
  {
    name: "messages.markRead POSTs channel_id and message_id to /messages/mark-read",
    route: ["post", "/platform/v1/messages/mark-read"],
    reply: { json: f.markReadResult },
    call: (c) => c.messages.markRead({ channel_id: 7, message_id: "wamid.inbound1" }),
    method: "POST",
    path: "/platform/v1/messages/mark-read",
    body: { channel_id: 7, message_id: "wamid.inbound1" },
    result: f.markReadResult
  },
  {
    name: "media.upload from a URL POSTs JSON {channel_id, url, mime_type}",
    route: ["post", "/platform/v1/media"],
    reply: { json: f.mediaUpload },
    call: (c) => c.media.upload({ channel_id: 7, url: "https://cdn.test/cat.png", mime_type: "image/png" }),
    method: "POST",
    path: "/platform/v1/media",
    body: { channel_id: 7, url: "https://cdn.test/cat.png", mime_type: "image/png" },
    result: f.mediaUpload
  },
  {
    name: "media.getUrl GETs /media/{id}/url with channel_id in the query",
    route: ["get", "/platform/v1/media/:id/url"],
    reply: { json: f.mediaUrl },
    call: (c) => c.media.getUrl("1234567890", { channel_id: 7 }),
    method: "GET",
    path: "/platform/v1/media/1234567890/url",
    query: { channel_id: "7" },
    result: f.mediaUrl
  },
  {
    name: "media.delete DELETEs /media/{id} with channel_id in the query",
    route: ["delete", "/platform/v1/media/:id"],
    reply: { json: f.mediaDeleted },
    call: (c) => c.media.delete("1234567890", { channel_id: 7 }),
    method: "DELETE",
    path: "/platform/v1/media/1234567890",
    query: { channel_id: "7" },
    result: f.mediaDeleted
  },
  {
    name: "channels.list GETs /platform/v1/channels and returns the plain array",
    route: ["get", "/platform/v1/channels"],
    reply: { json: [f.channel] },
    call: (c) => c.channels.list(),
    method: "GET",
    path: "/platform/v1/channels",
    result: [f.channel]
  },
  {
    name: "channels.list with a type GETs /platform/v1/channels?type=",
    route: ["get", "/platform/v1/channels"],
    reply: { json: [{ ...f.channel, type: "social" }] },
    call: (c) => c.channels.list({ type: "social" }),
    method: "GET",
    path: "/platform/v1/channels",
    query: { type: "social" },
    result: [{ ...f.channel, type: "social" }]
  },
  {
    name: "channels.setInbound PATCHes /channels/{id}/inbound with {enabled} and returns the channel",
    route: ["patch", "/platform/v1/channels/:id/inbound"],
    reply: { json: { ...f.channel, inbound_enabled: false } },
    call: (c) => c.channels.setInbound(7, { enabled: false }),
    method: "PATCH",
    path: "/platform/v1/channels/7/inbound",
    body: { enabled: false },
    result: { ...f.channel, inbound_enabled: false }
  },
  {
    name: "channels.health GETs /channels/{id}/health",
    route: ["get", "/platform/v1/channels/:id/health"],
    reply: { json: f.channelHealth },
    call: (c) => c.channels.health(7),
    method: "GET",
    path: "/platform/v1/channels/7/health",
    result: f.channelHealth
  },
  {
    name: "channels.getProfile GETs /channels/{id}/profile",
    route: ["get", "/platform/v1/channels/:id/profile"],
    reply: { json: f.channelProfile },
    call: (c) => c.channels.getProfile(7),
    method: "GET",
    path: "/platform/v1/channels/7/profile",
    result: f.channelProfile
  },
  {
    name: "channels.updateProfile POSTs only the given fields to /channels/{id}/profile and returns the profile",
    route: ["post", "/platform/v1/channels/:id/profile"],
    reply: { json: f.channelProfile },
    call: (c) => c.channels.updateProfile(7, { about: "Open 9 to 5", websites: ["https://example.com"] }),
    method: "POST",
    path: "/platform/v1/channels/7/profile",
    body: { about: "Open 9 to 5", websites: ["https://example.com"] },
    result: f.channelProfile
  },
  {
    name: "channels.getDisplayName GETs /channels/{id}/display-name",
    route: ["get", "/platform/v1/channels/:id/display-name"],
    reply: { json: f.channelDisplayName },
    call: (c) => c.channels.getDisplayName(7),
    method: "GET",
    path: "/platform/v1/channels/7/display-name",
    result: f.channelDisplayName
  },
  {
    name: "channels.submitDisplayName POSTs /channels/{id}/display-name and rejects with the 501",
    route: ["post", "/platform/v1/channels/:id/display-name"],
    reply: { status: 501, json: { detail: { code: "not_implemented", message: "managed in the business manager" } } },
    call: (c) => c.channels.submitDisplayName(7).catch((e: { name: string; status: number; code: string }) => ({ name: e.name, status: e.status, code: e.code })),
    method: "POST",
    path: "/platform/v1/channels/7/display-name",
    result: { name: "NotImplementedError", status: 501, code: "not_implemented" }
  },
  {
    name: "channels.blockUsers POSTs {users} to /channels/{id}/block-users and returns who was blocked and who was refused",
    route: ["post", "/platform/v1/channels/:id/block-users"],
    reply: { json: f.blockUsersResult },
    call: (c) => c.channels.blockUsers(7, { users: ["+1 555 000 1111", "15550002222"] }),
    method: "POST",
    path: "/platform/v1/channels/7/block-users",
    body: { users: ["+1 555 000 1111", "15550002222"] },
    result: f.blockUsersResult
  },
  {
    name: "channels.unblockUsers DELETEs /channels/{id}/block-users with {users} in the body",
    route: ["delete", "/platform/v1/channels/:id/block-users"],
    reply: { json: f.blockUsersResult },
    call: (c) => c.channels.unblockUsers(7, { users: ["+1 555 000 1111"] }),
    method: "DELETE",
    path: "/platform/v1/channels/7/block-users",
    body: { users: ["+1 555 000 1111"] },
    result: f.blockUsersResult
  },
  {
    name: "channels.setTwoFactorPin POSTs {pin} to /channels/{id}/two-factor",
    route: ["post", "/platform/v1/channels/:id/two-factor"],
    reply: { json: f.twoFactorResult },
    call: (c) => c.channels.setTwoFactorPin(7, { pin: "135790" }),
    method: "POST",
    path: "/platform/v1/channels/7/two-factor",
    body: { pin: "135790" },
    result: f.twoFactorResult
  },
  {
    name: "conversations.update PATCHes /conversations/{id} with {status} and returns the conversation",
    route: ["patch", "/platform/v1/conversations/:id"],
    reply: { json: f.conversation },
    call: (c) => c.conversations.update(31, { status: "ended" }),
    method: "PATCH",
    path: "/platform/v1/conversations/31",
    body: { status: "ended" },
    result: f.conversation
  },
  {
    name: "conversations.list GETs /conversations with every filter and the cursors",
    route: ["get", "/platform/v1/conversations"],
    reply: { json: page([f.conversation]) },
    call: async (c) => (await c.conversations.list({ channel_id: 7, status: "ended", peer_id: "15550001111", limit: 10, after: "YQ", before: "Yg" })).data,
    method: "GET",
    path: "/platform/v1/conversations",
    query: { channel_id: "7", status: "ended", peer_id: "15550001111", limit: "10", after: "YQ", before: "Yg" },
    result: [f.conversation]
  },
  {
    name: "conversations.retrieve GETs /conversations/{id}",
    route: ["get", "/platform/v1/conversations/:id"],
    reply: { json: f.conversation },
    call: (c) => c.conversations.retrieve(31),
    method: "GET",
    path: "/platform/v1/conversations/31",
    result: f.conversation
  },
  {
    name: "messages.list GETs the stored history with every filter",
    route: ["get", "/platform/v1/messages"],
    reply: { json: page([f.message]) },
    call: async (c) =>
      (await c.messages.list({
        channel_id: 7,
        conversation_id: 31,
        contact_id: 41,
        peer_id: "15550001111",
        direction: "outbound",
        type: "text",
        status: "delivered",
        since: "2025-01-01T00:00:00Z",
        until: "2025-02-01T00:00:00Z",
        limit: 100,
        after: "YQ",
        before: "Yg"
      })).data,
    method: "GET",
    path: "/platform/v1/messages",
    query: {
      channel_id: "7",
      conversation_id: "31",
      contact_id: "41",
      peer_id: "15550001111",
      direction: "outbound",
      type: "text",
      status: "delivered",
      since: "2025-01-01T00:00:00Z",
      until: "2025-02-01T00:00:00Z",
      limit: "100",
      after: "YQ",
      before: "Yg"
    },
    result: [f.message]
  },
  {
    name: "messages.retrieve GETs /messages/{id}",
    route: ["get", "/platform/v1/messages/:id"],
    reply: { json: f.message },
    call: (c) => c.messages.retrieve(51),
    method: "GET",
    path: "/platform/v1/messages/51",
    result: f.message
  },
  {
    name: "contacts.list GETs /contacts with channel_id, q and the cursors",
    route: ["get", "/platform/v1/contacts"],
    reply: { json: page([f.contact]) },
    call: async (c) => (await c.contacts.list({ channel_id: 7, q: "ada", limit: 5, after: "YQ", before: "Yg" })).data,
    method: "GET",
    path: "/platform/v1/contacts",
    query: { channel_id: "7", q: "ada", limit: "5", after: "YQ", before: "Yg" },
    result: [f.contact]
  },
  {
    name: "contacts.retrieve GETs /contacts/{id}",
    route: ["get", "/platform/v1/contacts/:id"],
    reply: { json: f.contact },
    call: (c) => c.contacts.retrieve(41),
    method: "GET",
    path: "/platform/v1/contacts/41",
    result: f.contact
  },
  {
    name: "contacts.update PATCHes /contacts/{id} with the metadata and display name",
    route: ["patch", "/platform/v1/contacts/:id"],
    reply: { json: f.contact },
    call: (c) => c.contacts.update(41, { display_name: "Ada Lovelace", contact_metadata: { crm_id: "C-42", old: null } }),
    method: "PATCH",
    path: "/platform/v1/contacts/41",
    body: { display_name: "Ada Lovelace", contact_metadata: { crm_id: "C-42", old: null } },
    result: f.contact
  },
  {
    name: "contacts.delete DELETEs /contacts/{id} and returns the 202 body",
    route: ["delete", "/platform/v1/contacts/:id"],
    reply: { status: 202, json: f.contactDeleted },
    call: (c) => c.contacts.delete(41),
    method: "DELETE",
    path: "/platform/v1/contacts/41",
    result: f.contactDeleted
  },
  {
    name: "templates.create POSTs the body to /platform/v1/templates",
    route: ["post", "/platform/v1/templates"],
    reply: { json: f.template },
    call: (c) => c.templates.create({ channel_id: 7, name: "order_update", language_code: "en_US", category: "utility", body_text: "Order {{1}} has shipped", variables: ["A-17"] }),
    method: "POST",
    path: "/platform/v1/templates",
    body: { channel_id: 7, name: "order_update", language_code: "en_US", category: "utility", body_text: "Order {{1}} has shipped", variables: ["A-17"] },
    result: f.template
  },
  {
    name: "templates.list GETs /platform/v1/templates with every filter and returns the plain array",
    route: ["get", "/platform/v1/templates"],
    reply: { json: [f.template] },
    call: (c) => c.templates.list({ channel_id: 7, name: "order_update", language_code: "en_US", category: "utility", status: "approved", is_active: true }),
    method: "GET",
    path: "/platform/v1/templates",
    query: { channel_id: "7", name: "order_update", language_code: "en_US", category: "utility", status: "approved", is_active: "true" },
    result: [f.template]
  },
  {
    name: "templates.retrieve GETs /templates/{id}",
    route: ["get", "/platform/v1/templates/:id"],
    reply: { json: f.template },
    call: (c) => c.templates.retrieve(51),
    method: "GET",
    path: "/platform/v1/templates/51",
    result: f.template
  },
  {
    name: "templates.update PATCHes only the given fields",
    route: ["patch", "/platform/v1/templates/:id"],
    reply: { json: { ...f.template, category: "marketing" } },
    call: (c) => c.templates.update(51, { category: "marketing" }),
    method: "PATCH",
    path: "/platform/v1/templates/51",
    body: { category: "marketing" },
    result: { ...f.template, category: "marketing" }
  },
  {
    name: "templates.delete DELETEs /templates/{id} and resolves to undefined on 204",
    route: ["delete", "/platform/v1/templates/:id"],
    reply: { status: 204 },
    call: (c) => c.templates.delete(51),
    method: "DELETE",
    path: "/platform/v1/templates/51",
    result: undefined
  },
  {
    name: "templates.sync POSTs {channel_id} to /templates/sync and returns the counts",
    route: ["post", "/platform/v1/templates/sync"],
    reply: { json: f.templateSync },
    call: (c) => c.templates.sync({ channel_id: 7 }),
    method: "POST",
    path: "/platform/v1/templates/sync",
    body: { channel_id: 7 },
    result: f.templateSync
  },
  {
    name: "templates.uploadHeaderMedia POSTs a multipart form to /templates/header-media and returns the handle",
    route: ["post", "/platform/v1/templates/header-media"],
    reply: { json: f.headerMedia },
    call: (c) => c.templates.uploadHeaderMedia({ channel_id: 7, file: new Uint8Array([1, 2]), filename: "h.png", mime_type: "image/png" }),
    method: "POST",
    path: "/platform/v1/templates/header-media",
    result: f.headerMedia
  },
  {
    name: "subscriptions.create POSTs the body and returns the secret",
    route: ["post", subs],
    reply: { status: 201, json: f.subscriptionWithSecret },
    call: (c) => c.webhooks.subscriptions.create({ target_url: "https://example.com/webhooks", event_types: ["message.sent", "message.read"], description: "prod receiver" }),
    method: "POST",
    path: subs,
    body: { target_url: "https://example.com/webhooks", event_types: ["message.sent", "message.read"], description: "prod receiver" },
    result: f.subscriptionWithSecret
  },
  {
    name: "subscriptions.retrieve GETs /subscriptions/{id}",
    route: ["get", `${subs}/:id`],
    reply: { json: f.subscription },
    call: (c) => c.webhooks.subscriptions.retrieve(11),
    method: "GET",
    path: `${subs}/11`,
    result: f.subscription
  },
  {
    name: "subscriptions.list GETs the list with limit and returns the first page",
    route: ["get", subs],
    reply: { json: page([f.subscription]) },
    call: async (c) => (await c.webhooks.subscriptions.list({ limit: 10 })).data,
    method: "GET",
    path: subs,
    query: { limit: "10" },
    result: [f.subscription]
  },
  {
    name: "subscriptions.list passes the after and before cursors",
    route: ["get", subs],
    reply: { json: page([f.subscription]) },
    call: async (c) => (await c.webhooks.subscriptions.list({ after: "aWQ6OQ", before: "aWQ6MQ" })).data,
    method: "GET",
    path: subs,
    query: { after: "aWQ6OQ", before: "aWQ6MQ" },
    result: [f.subscription]
  },
  {
    name: "subscriptions.update PATCHes only the given fields",
    route: ["patch", `${subs}/:id`],
    reply: { json: { ...f.subscription, is_active: false } },
    call: (c) => c.webhooks.subscriptions.update(11, { is_active: false, buffer_window_seconds: null }),
    method: "PATCH",
    path: `${subs}/11`,
    body: { is_active: false, buffer_window_seconds: null },
    result: { ...f.subscription, is_active: false }
  },
  {
    name: "subscriptions.delete DELETEs /subscriptions/{id} and resolves to undefined on 204",
    route: ["delete", `${subs}/:id`],
    reply: { status: 204 },
    call: (c) => c.webhooks.subscriptions.delete(11),
    method: "DELETE",
    path: `${subs}/11`,
    result: undefined
  },
  {
    name: "subscriptions.resume POSTs /subscriptions/{id}/resume without a body",
    route: ["post", `${subs}/:id/resume`],
    reply: { json: f.subscription },
    call: (c) => c.webhooks.subscriptions.resume(11),
    method: "POST",
    path: `${subs}/11/resume`,
    body: undefined,
    result: f.subscription
  },
  {
    name: "subscriptions.rotateSecret POSTs /subscriptions/{id}/rotate-secret and returns the new secret",
    route: ["post", `${subs}/:id/rotate-secret`],
    reply: { json: f.subscriptionWithSecret },
    call: (c) => c.webhooks.subscriptions.rotateSecret(11),
    method: "POST",
    path: `${subs}/11/rotate-secret`,
    result: f.subscriptionWithSecret
  },
  {
    name: "subscriptions.test POSTs /subscriptions/{id}/test with event_type in the query",
    route: ["post", `${subs}/:id/test`],
    reply: { json: { ...f.delivery, status: "pending" } },
    call: (c) => c.webhooks.subscriptions.test(11, { event_type: "message.read" }),
    method: "POST",
    path: `${subs}/11/test`,
    query: { event_type: "message.read" },
    result: { ...f.delivery, status: "pending" }
  },
  {
    name: "deliveries.list GETs native deliveries with every filter",
    route: ["get", dels],
    reply: { json: { mode: "native", ...page([f.delivery]) } },
    call: async (c) => {
      const p = await c.webhooks.deliveries.list({ subscription_id: 11, channel_id: 7, status: "failed", event_type: "message.sent", errors_only: true, limit: 20 })
      return { mode: p.mode, data: p.data }
    },
    method: "GET",
    path: dels,
    query: { subscription_id: "11", channel_id: "7", status: "failed", event_type: "message.sent", errors_only: "true", limit: "20" },
    result: { mode: "native", data: [f.delivery] }
  },
  {
    name: "deliveries.list passes the after and before cursors",
    route: ["get", dels],
    reply: { json: { mode: "native", ...page([f.delivery]) } },
    call: async (c) => (await c.webhooks.deliveries.list({ after: "ZDox", before: "ZDo5" })).data,
    method: "GET",
    path: dels,
    query: { after: "ZDox", before: "ZDo5" },
    result: [f.delivery]
  },
  {
    name: "deliveries.list with mode meta returns raw-forward rows",
    route: ["get", dels],
    reply: { json: { mode: "meta", ...page([f.rawDelivery]) } },
    call: async (c) => {
      const p = await c.webhooks.deliveries.list({ mode: "meta" })
      return { mode: p.mode, data: p.data }
    },
    method: "GET",
    path: dels,
    query: { mode: "meta" },
    result: { mode: "meta", data: [f.rawDelivery] }
  },
  {
    name: "deliveries.retrieve GETs /deliveries/{id} with include=full_envelope",
    route: ["get", `${dels}/:id`],
    reply: { json: { ...f.delivery, envelope: f.envelope } },
    call: (c) => c.webhooks.deliveries.retrieve(21, { include: "full_envelope" }),
    method: "GET",
    path: `${dels}/21`,
    query: { include: "full_envelope" },
    result: { ...f.delivery, envelope: f.envelope }
  },
  {
    name: "broadcasts.create POSTs the draft to /broadcasts",
    route: ["post", bcs],
    reply: { status: 201, json: f.broadcast },
    call: (c) => c.broadcasts.create({ name: "May promo", channel_id: 7, template_name: "may_promo", language_code: "en_US" }),
    method: "POST",
    path: bcs,
    body: { name: "May promo", channel_id: 7, template_name: "may_promo", language_code: "en_US" },
    result: f.broadcast
  },
  {
    name: "broadcasts.list GETs /broadcasts with its filters and cursors",
    route: ["get", bcs],
    reply: { json: page([f.broadcast]) },
    call: async (c) => (await c.broadcasts.list({ channel_id: 7, status: "draft", limit: 5, after: "aWQ6OQ", before: "aWQ6MQ" })).data,
    method: "GET",
    path: bcs,
    query: { channel_id: "7", status: "draft", limit: "5", after: "aWQ6OQ", before: "aWQ6MQ" },
    result: [f.broadcast]
  },
  {
    name: "broadcasts.retrieve GETs /broadcasts/{id}",
    route: ["get", `${bcs}/:id`],
    reply: { json: f.broadcast },
    call: (c) => c.broadcasts.retrieve(51),
    method: "GET",
    path: `${bcs}/51`,
    result: f.broadcast
  },
  {
    name: "broadcasts.addRecipients POSTs {recipients} to /broadcasts/{id}/recipients",
    route: ["post", `${bcs}/:id/recipients`],
    reply: { json: f.broadcastRecipientsResult },
    call: (c) => c.broadcasts.addRecipients(51, { recipients: [{ to: "15550001111" }, { to: "15550002222", components: [] }] }),
    method: "POST",
    path: `${bcs}/51/recipients`,
    body: { recipients: [{ to: "15550001111" }, { to: "15550002222", components: [] }] },
    result: f.broadcastRecipientsResult
  },
  {
    name: "broadcasts.listRecipients GETs /broadcasts/{id}/recipients and returns the page with its counts",
    route: ["get", `${bcs}/:id/recipients`],
    reply: { json: { ...page([f.broadcastRecipient]), counts: f.broadcastRecipientCounts } },
    call: async (c) => {
      const p = await c.broadcasts.listRecipients(51, { status: "read", limit: 10, after: "aWQ6OQ", before: "aWQ6MQ" })
      return { data: p.data, counts: p.counts }
    },
    method: "GET",
    path: `${bcs}/51/recipients`,
    query: { status: "read", limit: "10", after: "aWQ6OQ", before: "aWQ6MQ" },
    result: { data: [f.broadcastRecipient], counts: f.broadcastRecipientCounts }
  },
  {
    name: "broadcasts.schedule POSTs {scheduled_at} to /broadcasts/{id}/schedule",
    route: ["post", `${bcs}/:id/schedule`],
    reply: { json: { ...f.broadcast, status: "scheduled", scheduled_at: "2025-05-02T09:00:00.000Z" } },
    call: (c) => c.broadcasts.schedule(51, { scheduled_at: "2025-05-02T09:00:00.000Z" }),
    method: "POST",
    path: `${bcs}/51/schedule`,
    body: { scheduled_at: "2025-05-02T09:00:00.000Z" },
    result: { ...f.broadcast, status: "scheduled", scheduled_at: "2025-05-02T09:00:00.000Z" }
  },
  {
    name: "broadcasts.send POSTs /broadcasts/{id}/send and returns the sending broadcast (202)",
    route: ["post", `${bcs}/:id/send`],
    reply: { status: 202, json: { ...f.broadcast, status: "sending" } },
    call: (c) => c.broadcasts.send(51),
    method: "POST",
    path: `${bcs}/51/send`,
    body: undefined,
    result: { ...f.broadcast, status: "sending" }
  },
  {
    name: "broadcasts.cancel POSTs /broadcasts/{id}/cancel",
    route: ["post", `${bcs}/:id/cancel`],
    reply: { json: f.broadcast },
    call: (c) => c.broadcasts.cancel(51),
    method: "POST",
    path: `${bcs}/51/cancel`,
    body: undefined,
    result: f.broadcast
  },
  {
    name: "deliveries.redeliver POSTs /deliveries/{id}/redeliver and returns the new delivery",
    route: ["post", `${dels}/:id/redeliver`],
    reply: { json: { ...f.delivery, id: 22, status: "pending", attempts: 0 } },
    call: (c) => c.webhooks.deliveries.redeliver(21),
    method: "POST",
    path: `${dels}/21/redeliver`,
    result: { ...f.delivery, id: 22, status: "pending", attempts: 0 }
  }
]

describe("resource methods", () => {
  it.each(cases)("$name", async (c) => {
    api.on(c.route[0], c.route[1], c.reply)
    const result = await c.call(client())
    expect(result).toEqual(c.result)
    expect(api.calls).toHaveLength(1)
    const call = api.calls[0]!
    expect(call.method).toBe(c.method)
    expect(call.path).toBe(c.path)
    expect(call.query).toEqual(c.query ?? {})
    if ("body" in c) expect(call.body).toEqual(c.body)
    expect(call.headers.get("x-api-key")).toBe("pk_test_key")
    expect(call.headers.get("accept")).toBe("application/json")
  })

  it("every /platform/v1 route of the HttpApi, and each of its query parameters, has a method above", () => {
    const template = (path: string) => path.replace(/:[A-Za-z_]+/g, ":")
    const covered = new Map<string, Set<string>>()
    for (const c of cases) {
      const key = `${c.method} ${template(c.route[1])}`
      const params = covered.get(key) ?? new Set<string>()
      for (const name of Object.keys(c.query ?? {})) params.add(name)
      covered.set(key, params)
    }
    // The event stream is a Server-Sent Events route with its own tests below.
    covered.set("GET /platform/v1/events/stream", new Set(["event_types", "channel_id"]))
    const missing: string[] = []
    HttpApi.reflect(PlatformApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        if (!endpoint.path.startsWith("/platform/v1/") || endpoint.path.startsWith("/platform/v1/openapi")) return
        const key = `${endpoint.method} ${template(endpoint.path)}`
        const params = covered.get(key)
        if (params === undefined) return void missing.push(key)
        const query = Option.getOrUndefined(endpoint.urlParamsSchema)
        for (const p of query === undefined ? [] : SchemaAST.getPropertySignatures(query.ast)) {
          if (!params.has(String(p.name))) missing.push(`${key} ?${String(p.name)}`)
        }
      }
    })
    expect(missing).toEqual([])
  })

  it("broadcasts.create and broadcasts.send always carry an Idempotency-Key, and a caller's key is sent as given", async () => {
    api.on("post", bcs, { status: 201, json: f.broadcast })
    api.on("post", `${bcs}/:id/send`, { status: 202, json: { ...f.broadcast, status: "sending" } })
    const c = client()
    await c.broadcasts.create({ name: "May promo", channel_id: 7, template_name: "may_promo", language_code: "en_US" })
    await c.broadcasts.send(51)
    await c.broadcasts.send(51, { idempotencyKey: "send-51" })
    const keys = api.calls.map((call) => call.headers.get("idempotency-key"))
    expect(keys[0]).toMatch(/.+/)
    expect(keys[1]).toMatch(/.+/)
    expect(keys[1]).not.toBe(keys[0])
    expect(keys[2]).toBe("send-51")
  })

  it("messages.send always carries an Idempotency-Key, and a caller's key is sent as given", async () => {
    api.on("post", "/platform/v1/messages", { json: f.sendResult })
    await client().messages.sendText({ ...sendTo, text: "a" })
    await client().messages.sendText({ ...sendTo, text: "b" }, { idempotencyKey: "order-42" })
    const [auto, given] = api.calls.map((c) => c.headers.get("idempotency-key"))
    expect(auto).toMatch(/^[0-9a-f-]{36}$/)
    expect(given).toBe("order-42")
  })

  it("request options add headers and remove defaults with null", async () => {
    api.on("get", "/platform/v1/channels", { json: [] })
    await client().channels.list({}, { headers: { "x-trace": "t1", "user-agent": null } })
    expect(api.calls[0]!.headers.get("x-trace")).toBe("t1")
    expect(api.calls[0]!.headers.get("user-agent") ?? "").not.toMatch(/platform-sdk/)
  })

  // A JS caller (no type checker) with a typo or an option in the wrong argument: the call throws a TypeError naming
  // the key before anything is sent, rather than sending it (the server ignores unknown query keys) or dropping it.
  it.each([
    ["deliveries.list", (c: Platform) => c.webhooks.deliveries.list({ limt: 5 } as never), /deliveries\.list\(\) got an unknown option "limt" \(did you mean "limit"\?\)/],
    ["deliveries.list", (c: Platform) => c.webhooks.deliveries.list({ limit: 5, foo: 1 } as never), /unknown option "foo"; it takes "limit", "after", "before", "mode"/],
    ["subscriptions.list", (c: Platform) => c.webhooks.subscriptions.list({ cursor: "abc" } as never), /subscriptions\.list\(\) got an unknown option "cursor"/],
    ["subscriptions.list", (c: Platform) => c.webhooks.subscriptions.list({ timeout: 5 } as never), /"timeout" is a request option: pass it in the last argument/],
    ["subscriptions.test", (c: Platform) => c.webhooks.subscriptions.test(1, { event: "message.sent" } as never), /unknown option "event"/],
    ["deliveries.retrieve", (c: Platform) => c.webhooks.deliveries.retrieve(1, { includes: "full_envelope" } as never), /did you mean "include"/],
    ["channels.list", (c: Platform) => c.channels.list({ kind: "chat" } as never), /channels\.list\(\) got an unknown option "kind"/],
    ["messages.list", (c: Platform) => c.messages.list({ from: "2025-01-01T00:00:00Z" } as never), /messages\.list\(\) got an unknown option "from"/],
    ["conversations.list", (c: Platform) => c.conversations.list({ statuss: "active" } as never), /did you mean "status"/],
    ["contacts.list", (c: Platform) => c.contacts.list({ query: "ada" } as never), /contacts\.list\(\) got an unknown option "query"/],
    ["templates.list", (c: Platform) => c.templates.list({ language: "en_US" } as never), /templates\.list\(\) got an unknown option "language"/],
    ["media.getUrl", (c: Platform) => c.media.getUrl("m1", { channel: 7 } as never), /did you mean "channel_id"/],
    ["media.delete", (c: Platform) => c.media.delete("m1", { channel_id: 7, force: true } as never), /unknown option "force"/],
    ["events.stream", (c: Platform) => c.events.stream({ event_type: ["message.sent"] } as never), /did you mean "event_types"/]
  ] as ReadonlyArray<[string, (c: Platform) => unknown, RegExp]>)("%s with an unknown option throws a TypeError naming it and sends nothing", async (_name, call, message) => {
    api.on("get", "/platform/v1/channels", { json: [] })
    const error = await Promise.resolve().then(() => call(client())).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toMatch(/^@platform\/sdk: /)
    expect((error as Error).message).toMatch(message)
    expect(api.calls).toHaveLength(0)
  })

  it("options holding undefined are left out, as before; known ones are sent", async () => {
    api.on("get", dels, { json: { mode: "native", ...page([]) } })
    // What a JS caller spreading optional fields sends (the types, with exactOptionalPropertyTypes, refuse it).
    await client().webhooks.deliveries.list({ limit: 5, status: undefined, errors_only: true } as never)
    expect(api.calls[0]!.query).toEqual({ limit: "5", errors_only: "true" })
  })

  it("media.upload of a Blob sends multipart channel_id and file with its name and type", async () => {
    api.on("post", "/platform/v1/media", { json: f.mediaUpload })
    const file = new File([new Uint8Array([1, 2, 3])], "cat.png", { type: "image/png" })
    expect(await client().media.upload({ channel_id: 7, file })).toEqual(f.mediaUpload)
    const form = api.calls[0]!.body as FormData
    expect(api.calls[0]!.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/)
    expect(form.get("channel_id")).toBe("7")
    const sent = form.get("file") as File
    expect(sent.name).toBe("cat.png")
    expect(sent.type).toBe("image/png")
    expect(new Uint8Array(await sent.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]))
  })

  it("templates.uploadHeaderMedia sends multipart channel_id and file and returns the handle", async () => {
    api.on("post", "/platform/v1/templates/header-media", { json: f.headerMedia })
    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "header.png", { type: "image/png" })
    expect(await client().templates.uploadHeaderMedia({ channel_id: 7, file })).toEqual(f.headerMedia)
    expect(api.calls[0]!.path).toBe("/platform/v1/templates/header-media")
    const form = api.calls[0]!.body as FormData
    expect(form.get("channel_id")).toBe("7")
    const sent = form.get("file") as File
    expect([sent.name, sent.type]).toEqual(["header.png", "image/png"])
  })

  it("media.upload of a path reads the file and guesses its MIME type from the extension", async () => {
    api.on("post", "/platform/v1/media", { json: f.mediaUpload })
    const dir = mkdtempSync(join(tmpdir(), "sdk-media-"))
    const path = join(dir, "invoice.pdf")
    writeFileSync(path, "%PDF-1.4 test")
    await client().media.upload({ channel_id: 7, file: path })
    const sent = (api.calls[0]!.body as FormData).get("file") as File
    expect(sent.name).toBe("invoice.pdf")
    expect(sent.type).toBe("application/pdf")
    expect(await sent.text()).toBe("%PDF-1.4 test")
  })

  it.each([
    ["a missing file", (dir: string) => join(dir, "missing.png"), "no such file (ENOENT)"],
    ["a directory", (dir: string) => dir, "it is a directory, not a file"]
  ])("media.upload of %s throws MediaFileError naming the path and the cause, and sends nothing", async (_name, pathIn, reason) => {
    const path = pathIn(mkdtempSync(join(tmpdir(), "sdk-media-")))
    const error = await client().media.upload({ channel_id: 7, file: path }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MediaFileError)
    expect(error).toBeInstanceOf(PlatformError)
    expect(error).toMatchObject({ name: "MediaFileError", path, reason, message: `media.upload: cannot read ${path}: ${reason}` })
    expect(api.calls).toHaveLength(0)
  })

  it("media.upload of a byte stream sends the collected bytes", async () => {
    api.on("post", "/platform/v1/media", { json: f.mediaUpload })
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([104, 105]))
        controller.enqueue(new Uint8Array([33]))
        controller.close()
      }
    })
    await client().media.upload({ channel_id: 7, file: stream, filename: "hi.txt", mime_type: "text/plain" })
    const sent = (api.calls[0]!.body as FormData).get("file") as File
    expect([sent.name, sent.type, await sent.text()]).toEqual(["hi.txt", "text/plain", "hi!"])
  })

  it("rateLimit exposes the X-RateLimit-* headers of the last response", async () => {
    api.on("get", "/platform/v1/channels", {
      json: [],
      headers: { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "57", "x-ratelimit-reset": "1735787045", "x-request-id": "req_1" }
    })
    const c = client()
    expect(c.rateLimit).toBeUndefined()
    await c.channels.list()
    expect(c.rateLimit).toEqual({ limit: 60, remaining: 57, reset: 1735787045 })
    expect(c.lastRequestId).toBe("req_1")
  })
})

describe("events.stream", () => {
  const sse = (e: typeof f.envelope) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`
  const second = { ...f.envelope, id: "evt_ffffffffffffffffffffffffffffffff", event: "message.read" }

  it("GETs /events/stream with the filters and yields envelopes, skipping comments and pings", async () => {
    api.on("get", "/platform/v1/events/stream", { sse: [": hello\n\n", "event: ping\ndata: {}\n\n", sse(f.envelope).slice(0, 30), sse(f.envelope).slice(30), sse(second)] })
    const controller = new AbortController()
    const seen: unknown[] = []
    for await (const event of client().events.stream({ event_types: ["message.sent", "message.read"], channel_id: 7, signal: controller.signal })) {
      seen.push(event)
      if (seen.length === 2) controller.abort()
    }
    expect(seen).toEqual([f.envelope, second])
    const call = api.calls[0]!
    expect(call.query).toEqual({ event_types: "message.sent,message.read", channel_id: "7" })
    expect(call.headers.get("accept")).toBe("text/event-stream")
    expect(call.headers.get("last-event-id")).toBeNull()
  })

  it("isKnownEvent tells the 12 known types (whose data is then typed by event) from a newer type the stream passes through", async () => {
    const future = { ...f.envelope, id: "evt_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", event: "shop.order_placed", data: { order_id: "o1" } }
    api.on("get", "/platform/v1/events/stream", { sse: [sse(second), sse(future as never)] })
    const controller = new AbortController()
    const seen: Array<[string, boolean, number | null]> = []
    for await (const event of client().events.stream({ signal: controller.signal })) {
      // Narrowing on `event` types `data` only once isKnownEvent has ruled out a newer type.
      const messageId: number | null = isKnownEvent(event) && event.event === "message.read" ? event.data.message_id : null
      seen.push([event.event, isKnownEvent(event), messageId])
      if (seen.length === 2) controller.abort()
    }
    expect(seen).toEqual([["message.read", true, f.envelope.data.message_id], ["shop.order_placed", false, null]])
  })

  it("reconnects after the stream closes, sending Last-Event-ID of the last event received; onOpen reports each open connection", async () => {
    api.on("get", "/platform/v1/events/stream", { sse: ["retry: 5\n\n", sse(f.envelope)] }, { network: true }, { sse: [sse(second)] })
    const reconnects: number[] = []
    const opens: boolean[] = []
    const stream = client().events.stream({ onReconnect: ({ attempt }) => reconnects.push(attempt), onOpen: ({ reconnect }) => opens.push(reconnect) })
    const seen: string[] = []
    for await (const event of stream) {
      seen.push(event.id)
      if (seen.length === 2) stream.close()
    }
    expect(seen).toEqual([f.envelope.id, second.id])
    expect(api.calls.map((c) => c.headers.get("last-event-id"))).toEqual([null, f.envelope.id, f.envelope.id])
    expect(reconnects).toEqual([1, 2])
    expect(opens).toEqual([false, true])
    expect(stream.lastEventId).toBe(second.id)
  })

  it("a Last-Event-ID the server no longer has calls onLastEventIdNotFound, skips the notice and resumes from its id on reconnect", async () => {
    const info = {
      last_event_id: "evt_00000000000000000000000000000000",
      starts_after: second.id,
      message: "Last-Event-ID evt_00000000000000000000000000000000 is not an event of this account from the last 24 hours"
    }
    const notice = `id: ${second.id}\nevent: last_event_id_not_found\ndata: ${JSON.stringify(info)}\n\n`
    api.on("get", "/platform/v1/events/stream", { sse: ["retry: 5\n\n", notice] }, { sse: [sse(f.envelope)] })
    const notFound: unknown[] = []
    const stream = client().events.stream({ lastEventId: info.last_event_id, onLastEventIdNotFound: (i) => notFound.push(i) })
    const seen: string[] = []
    for await (const event of stream) {
      seen.push(event.id)
      stream.close()
    }
    expect(seen).toEqual([f.envelope.id])
    expect(notFound).toEqual([info])
    expect(api.calls.map((c) => c.headers.get("last-event-id"))).toEqual([info.last_event_id, second.id])
  })

  it("maxReconnects counts failed reconnects in a row: connections that open and are later ended (a server restarting) never exhaust it", async () => {
    const ended = { sse: ["retry: 1\n: connected\n\n"] }
    api.on("get", "/platform/v1/events/stream", ended, ended, ended, ended, { sse: [sse(f.envelope)], hold: true })
    const stream = client().events.stream({ maxReconnects: 1 })
    const seen: string[] = []
    for await (const event of stream) {
      seen.push(event.id)
      stream.close()
    }
    expect(seen).toEqual([f.envelope.id])
    expect(api.calls).toHaveLength(5)
  })

  it("time the consumer spends on an event (a slow forward) is not idle time: the connection is kept (a real loopback server)", async () => {
    let connections = 0
    const server = createServer((_req, res) => {
      connections++
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(sse(f.envelope))
      // The second event arrives while the consumer is still busy with the first.
      setTimeout(() => res.write(sse(second)), 50)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const reconnects: unknown[] = []
      const c = new Platform({ apiKey: "pk_test_key", baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 })
      const stream = c.events.stream({ idleTimeoutMs: 100, onReconnect: ({ error }) => reconnects.push(error) })
      const seen: string[] = []
      for await (const event of stream) {
        seen.push(event.id)
        if (seen.length === 2) break
        // Three times idleTimeoutMs on the first event, as a forward to a slow receiver takes.
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
      expect(seen).toEqual([f.envelope.id, second.id])
      expect(reconnects).toEqual([])
      expect(connections).toBe(1)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("replaces a connection that sends nothing for idleTimeoutMs, resuming after the last event, and says why", async () => {
    api.on("get", "/platform/v1/events/stream", { sse: ["retry: 5\n\n", sse(f.envelope)], hold: true }, { sse: [sse(second)], hold: true })
    const errors: unknown[] = []
    const stream = client().events.stream({ idleTimeoutMs: 200, onReconnect: ({ error }) => errors.push(error) })
    const seen: string[] = []
    for await (const event of stream) {
      seen.push(event.id)
      if (seen.length === 2) stream.close()
    }
    expect(seen).toEqual([f.envelope.id, second.id])
    expect(api.calls.map((c) => c.headers.get("last-event-id"))).toEqual([null, f.envelope.id])
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(APIConnectionTimeoutError)
    expect(errors[0]).toMatchObject({ message: "no data for 0.2 s" })
  })

  it("keeps a connection whose keep-alives arrive within idleTimeoutMs (a real loopback server writing one every 100 ms)", async () => {
    let connections = 0
    const server = createServer((req, res) => {
      connections++
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(sse(f.envelope))
      const beat = setInterval(() => res.write(": keep-alive\n\n"), 100)
      req.on("close", () => clearInterval(beat))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const controller = new AbortController()
      const reconnects: unknown[] = []
      const c = new Platform({ apiKey: "pk_test_key", baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 })
      const it = c.events.stream({ idleTimeoutMs: 300, signal: controller.signal, onReconnect: ({ error }) => reconnects.push(error) })[Symbol.asyncIterator]()
      expect((await it.next()).value).toEqual(f.envelope)
      await new Promise((resolve) => setTimeout(resolve, 900))
      controller.abort()
      expect((await it.next()).done).toBe(true)
      expect(reconnects).toEqual([])
      expect(connections).toBe(1)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("stops with the API error instead of reconnecting when the key is rejected", async () => {
    api.on("get", "/platform/v1/events/stream", { status: 401, json: { detail: { code: "unauthorized", message: "API key missing, invalid, inactive or expired" } } })
    const stream = client().events.stream()
    await expect(async () => {
      for await (const _ of stream) void _
    }).rejects.toMatchObject({ name: "AuthenticationError", status: 401 })
    expect(api.calls).toHaveLength(1)
  })
})

describe("fixtures", () => {
  const table: ReadonlyArray<readonly [string, Schema.Schema.AnyNoContext, unknown]> = [
    ["SendResult", SendResult, f.sendResult],
    ["MarkReadResult", MarkReadResult, f.markReadResult],
    ["MediaUploadResult", MediaUploadResult, f.mediaUpload],
    ["MediaUrlResult", MediaUrlResult, f.mediaUrl],
    ["MediaDeleteResult", MediaDeleteResult, f.mediaDeleted],
    ["Channel", Channel, f.channel],
    ["ChannelHealth", ChannelHealth, f.channelHealth],
    ["ChannelProfile", ChannelProfile, f.channelProfile],
    ["ChannelDisplayName", ChannelDisplayName, f.channelDisplayName],
    ["BlockUsersResult", BlockUsersResult, f.blockUsersResult],
    ["TwoFactorResult", TwoFactorResult, f.twoFactorResult],
    ["Conversation", Conversation, f.conversation],
    ["Message", Message, f.message],
    ["Contact", Contact, f.contact],
    ["ContactDeleted", ContactDeleted, f.contactDeleted],
    ["WebhookSubscription", WebhookSubscription, f.subscription],
    ["WebhookSubscriptionWithSecret", WebhookSubscriptionWithSecret, f.subscriptionWithSecret],
    ["EventDelivery", EventDelivery, { ...f.delivery, envelope: f.envelope }],
    ["RawForwardDelivery", RawForwardDelivery, f.rawDelivery],
    ["Envelope", Envelope, f.envelope],
    ["Broadcast", Broadcast, f.broadcast],
    ["BroadcastRecipientsLoadResult", BroadcastRecipientsLoadResult, f.broadcastRecipientsResult],
    ["BroadcastRecipientsPage", BroadcastRecipientsPage, { ...page([f.broadcastRecipient]), counts: f.broadcastRecipientCounts }],
    ["Template", Template, f.template],
    ["TemplateSyncResult", TemplateSyncResult, f.templateSync],
    ["HeaderMediaResult", HeaderMediaResult, f.headerMedia],
    ["SendMessage (template with an integer button index)", SendMessage, { ...sendTo, ...helperCases[1]![2] }]
  ]
  it.each(table)("the %s fixture the mocks answer with decodes with the shared schema", (_name, schema, value) => {
    expect(() => Schema.decodeUnknownSync(schema)(value)).not.toThrow()
  })
})
