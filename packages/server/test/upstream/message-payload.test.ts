import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  SEND_MESSAGE_TYPES,
  type SendMessageInput,
  SOCIAL_SUPPORT,
  socialSupports,
  toChatPayload,
  toSocialPayload
} from "../../src/upstream/message-payload.js"

const TO = "15551234567"
const base = { messaging_product: "whatsapp", recipient_type: "individual", to: TO }

const CHAT_CASES: ReadonlyArray<readonly [string, SendMessageInput, Record<string, unknown>]> = [
  ["text with preview_url and reply context", { to: TO, type: "text", text: "see https://x.example", preview_url: true, context: { message_id: "wamid.IN" } },
    { ...base, type: "text", text: { preview_url: true, body: "see https://x.example" }, context: { message_id: "wamid.IN" } }],
  ["template with button index coerced to a string and carousel cards", {
    to: TO, type: "template", template_name: "promo", language_code: "en_US",
    components: [
      { type: "body", parameters: [{ type: "text", text: "Ann", parameter_name: "name" }] },
      { type: "button", sub_type: "quick_reply", index: 0, parameters: [{ type: "payload", payload: "yes" }] },
      { type: "carousel", cards: [{ card_index: 0, components: [{ type: "button", sub_type: "url", index: 1, parameters: [{ type: "text", text: "x" }] }] }] }
    ]
  }, {
    ...base, type: "template", template: {
      name: "promo", language: { code: "en_US" }, components: [
        { type: "body", parameters: [{ type: "text", text: "Ann", parameter_name: "name" }] },
        { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: "yes" }] },
        { type: "carousel", cards: [{ card_index: 0, components: [{ type: "button", sub_type: "url", index: "1", parameters: [{ type: "text", text: "x" }] }] }] }
      ]
    }
  }],
  ["image by link keeps its caption", { to: TO, type: "image", media: { link: "https://x.example/a.jpg", caption: "c" } },
    { ...base, type: "image", image: { link: "https://x.example/a.jpg", caption: "c" } }],
  ["video by id", { to: TO, type: "video", media: { id: "42", caption: "v" } }, { ...base, type: "video", video: { id: "42", caption: "v" } }],
  ["audio drops the caption and keeps voice", { to: TO, type: "audio", media: { id: "42", caption: "dropped", voice: true } },
    { ...base, type: "audio", audio: { id: "42", voice: true } }],
  ["document keeps caption and filename", { to: TO, type: "document", media: { link: "https://x.example/a.pdf", caption: "c", filename: "a.pdf" } },
    { ...base, type: "document", document: { link: "https://x.example/a.pdf", caption: "c", filename: "a.pdf" } }],
  ["sticker drops caption and voice", { to: TO, type: "sticker", media: { id: "42", caption: "x", voice: true } }, { ...base, type: "sticker", sticker: { id: "42" } }],
  ["interactive passes through", { to: TO, type: "interactive", interactive: { type: "list", body: { text: "b" } } },
    { ...base, type: "interactive", interactive: { type: "list", body: { text: "b" } } }],
  ["catalog becomes an interactive catalog_message", { to: TO, type: "catalog", interactive: { body: { text: "b" }, action: { name: "catalog_message" } } },
    { ...base, type: "interactive", interactive: { type: "catalog_message", body: { text: "b" }, action: { name: "catalog_message" } } }],
  ["location passes through", { to: TO, type: "location", location: { latitude: 1, longitude: 2 } }, { ...base, type: "location", location: { latitude: 1, longitude: 2 } }],
  ["contacts pass through", { to: TO, type: "contacts", contacts: [{ name: { formatted_name: "A" } }] }, { ...base, type: "contacts", contacts: [{ name: { formatted_name: "A" } }] }],
  ["reaction, with an empty emoji to remove it", { to: TO, type: "reaction", reaction: { message_id: "wamid.IN", emoji: "" } },
    { ...base, type: "reaction", reaction: { message_id: "wamid.IN", emoji: "" } }],
  ["typing is WhatsApp's typing indicator on the answered message", { to: TO, type: "typing", context: { message_id: "wamid.IN" } },
    { messaging_product: "whatsapp", status: "read", message_id: "wamid.IN", typing_indicator: { type: "text" } }]
]

const CHAT_INVALID: ReadonlyArray<readonly [string, SendMessageInput]> = [
  ["text without text", { to: TO, type: "text" }],
  ["template without a name", { to: TO, type: "template", language_code: "en" }],
  ["media with both link and id", { to: TO, type: "image", media: { link: "https://x.example/a", id: "1" } }],
  ["media with neither link nor id", { to: TO, type: "image", media: {} }],
  ["document by link without filename", { to: TO, type: "document", media: { link: "https://x.example/a.pdf" } }],
  ["typing without the inbound message id", { to: TO, type: "typing" }],
  ["reaction without message_id", { to: TO, type: "reaction" }]
]

const SOCIAL_CASES: ReadonlyArray<readonly [string, SendMessageInput, Record<string, unknown>]> = [
  ["text with reply_to, preview_url ignored", { to: "IG1", type: "text", text: "hi", preview_url: true, context: { message_id: "m_1" } },
    { recipient: { id: "IG1" }, reply_to: { mid: "m_1" }, message: { text: "hi" } }],
  ["image by link", { to: "IG1", type: "image", media: { link: "https://x.example/a.jpg", caption: "dropped" } },
    { recipient: { id: "IG1" }, message: { attachment: { type: "image", payload: { url: "https://x.example/a.jpg" } } } }],
  ["video by attachment id", { to: "IG1", type: "video", media: { id: "99" } },
    { recipient: { id: "IG1" }, message: { attachment: { type: "video", payload: { attachment_id: "99" } } } }],
  ["audio ignores voice", { to: "IG1", type: "audio", media: { link: "https://x.example/a.mp3", voice: true } },
    { recipient: { id: "IG1" }, message: { attachment: { type: "audio", payload: { url: "https://x.example/a.mp3" } } } }],
  ["document is a file attachment", { to: "IG1", type: "document", media: { link: "https://x.example/a.pdf" } },
    { recipient: { id: "IG1" }, message: { attachment: { type: "file", payload: { url: "https://x.example/a.pdf" } } } }],
  ["reaction is a react sender action", { to: "IG1", type: "reaction", reaction: { message_id: "m_1", emoji: "\u2764" } },
    { recipient: { id: "IG1" }, sender_action: "react", payload: { message_id: "m_1", reaction: "love" } }],
  ["an empty reaction unreacts", { to: "IG1", type: "reaction", reaction: { message_id: "m_1", emoji: "" } },
    { recipient: { id: "IG1" }, sender_action: "unreact", payload: { message_id: "m_1" } }],
  ["typing is typing_on", { to: "IG1", type: "typing" }, { recipient: { id: "IG1" }, sender_action: "typing_on" }]
]

describe("send request mapping", () => {
  it.each(CHAT_CASES)("chat: %s", (_name, send, expected) => {
    expect(toChatPayload(send)).toEqual(Either.right(expected))
  })

  it.each(CHAT_INVALID)("chat: %s is refused as invalid_request", (_name, send) => {
    const result = toChatPayload(send)
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "UpstreamRequestInvalid", code: "invalid_request" })
  })

  it.each(SOCIAL_CASES)("social: %s", (_name, send, expected) => {
    expect(toSocialPayload(send)).toEqual(Either.right(expected))
  })

  it.each(SEND_MESSAGE_TYPES.filter((t) => !socialSupports(t)))("social: type %s is refused as chat_only", (type) => {
    const result = toSocialPayload({ to: "IG1", type, text: "x", media: { id: "1" }, interactive: {}, location: {}, contacts: [{}] })
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "UpstreamRequestInvalid", code: "chat_only" })
  })

  it("the social support matrix covers all 13 types and allows exactly the documented seven", () => {
    expect(Object.keys(SOCIAL_SUPPORT).sort()).toEqual([...SEND_MESSAGE_TYPES].sort())
    expect(SEND_MESSAGE_TYPES.filter(socialSupports).sort()).toEqual(["audio", "document", "image", "reaction", "text", "typing", "video"])
  })
})
