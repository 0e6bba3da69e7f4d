import { Schema } from "effect"
import { Id, type Issue, Label, maxChars, NonBlankString, optional, requestBody } from "./common.js"

/** The message types a WhatsApp user's message arrives as (`messages[].type` of Meta's webhook). */
export const SANDBOX_CHAT_INBOUND_TYPES = [
  "text", "image", "video", "audio", "document", "sticker", "location", "contacts", "interactive", "button", "reaction", "order"
] as const

/** The kinds of an Instagram user's message: text, a reaction, or an attachment's `type`. */
export const SANDBOX_SOCIAL_INBOUND_TYPES = [
  "text", "image", "video", "audio", "file", "share", "story_mention", "ig_reel", "reaction"
] as const

/** The longest inbound text in characters (WhatsApp's limit; Instagram's, 999, is checked per channel). */
export const SANDBOX_TEXT_MAX = 4096

const SandboxInboundType = Schema.Literal(...new Set([...SANDBOX_CHAT_INBOUND_TYPES, ...SANDBOX_SOCIAL_INBOUND_TYPES]))

/**
 * POST /platform/dashboard/sandbox/inbound (sandbox upstream only): an inbound message
 * from `from` on one of the account's channels, posted to /webhook/incoming signed
 * the way Meta posts it. `text` for a text message, or `type` with its `payload` as
 * the upstream writes it (WhatsApp: the type's object, e.g. `{"link": ...}` for image,
 * a list of contacts for contacts; Instagram: the attachment payload, or
 * `{message_id, emoji}` for reaction). Lengths count characters, not UTF-16 units.
 */
export const SandboxInbound = requestBody(
  Schema.Struct({
    channel_id: Id,
    from: Label(64),
    text: optional(Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }), maxChars(SANDBOX_TEXT_MAX))),
    type: optional(SandboxInboundType),
    payload: optional(Schema.Unknown),
    profile_name: optional(Label(200)),
    context_message_id: optional(NonBlankString),
    /** Chat channels: the channel owner's own message written in the chat app (an `smb_message_echoes` change) to `from`, which the platform stores as an echo (message.echo). */
    echo: optional(Schema.Boolean)
  }).pipe(
    Schema.filter((b): Issue | undefined => {
      if (b.text === undefined && b.type === undefined) return { path: ["text"], message: "give text, or type and payload" }
      if (b.type !== undefined && b.type !== "text") {
        if (b.text !== undefined) {
          return { path: ["text"], message: `text goes with type text; a ${b.type} message carries its content in payload` }
        }
        if (b.payload === undefined) return { path: ["payload"], message: `type ${b.type} needs a payload` }
        const list = Array.isArray(b.payload)
        if (b.type === "contacts" ? !list || b.payload.length === 0 : typeof b.payload !== "object" || b.payload === null || list) {
          return {
            path: ["payload"],
            message: b.type === "contacts" ? "must be a non-empty list of contacts" : `must be the ${b.type} object`
          }
        }
      }
      if (b.text !== undefined && b.payload !== undefined) {
        return { path: ["payload"], message: "a text message takes text or payload.body, not both" }
      }
      if (b.type === "text" && b.text === undefined) {
        if (b.payload === undefined) return { path: ["text"], message: "a text message needs text" }
        const body = (b.payload as { readonly body?: unknown } | null)?.body
        if (typeof body !== "string" || body === "") return { path: ["payload", "body"], message: "a text payload needs a non-empty body" }
      }
      return undefined
    })
  ),
  "SandboxInbound"
)
export type SandboxInbound = typeof SandboxInbound.Type

/**
 * 202 of the sandbox inbound route: the upstream-style id of the injected message (`wamid.…` or `m_…`),
 * and whether the channel processes inbound traffic: with its kill-switch off the platform drops the
 * message (no message row, no message.received), as it would a real one.
 */
export const SandboxInboundAccepted = Schema.Struct({
  message_id: Schema.String,
  inbound_enabled: Schema.Boolean.annotations({
    description: "false: the channel's inbound is switched off (PATCH /platform/v1/channels/{id}/inbound), so the message was dropped."
  })
}).annotations({
  identifier: "SandboxInboundAccepted"
})
export type SandboxInboundAccepted = typeof SandboxInboundAccepted.Type
