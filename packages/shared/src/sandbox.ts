import { Schema } from "effect"
import { Id, type Issue, NonEmptyString, optional, requestBody } from "./common.js"

/**
 * POST /platform/dashboard/sandbox/inbound (sandbox upstream only): an inbound message
 * from `from` on one of the account's channels, posted to /webhook/incoming signed
 * the way Meta posts it. `text` for a text message, or `type` with its `payload` as
 * the upstream writes it (WhatsApp: the type's object, e.g. `{"link": ...}` for image;
 * Instagram: the attachment payload, or `{message_id, emoji}` for reaction).
 */
export const SandboxInbound = requestBody(
  Schema.Struct({
    channel_id: Id,
    from: NonEmptyString.pipe(Schema.maxLength(64, { message: () => "must be at most 64 characters" })),
    text: optional(Schema.String.pipe(Schema.maxLength(4096, { message: () => "must be at most 4096 characters" }))),
    type: optional(NonEmptyString.pipe(Schema.maxLength(32, { message: () => "must be at most 32 characters" }))),
    payload: optional(Schema.Unknown),
    profile_name: optional(NonEmptyString.pipe(Schema.maxLength(200, { message: () => "must be at most 200 characters" }))),
    context_message_id: optional(NonEmptyString)
  }).pipe(
    Schema.filter((b): Issue | undefined => {
      if (b.text === undefined && b.type === undefined) return { path: ["text"], message: "give text, or type and payload" }
      if (b.type !== undefined && b.type !== "text" && b.payload === undefined) {
        return { path: ["payload"], message: `type ${b.type} needs a payload` }
      }
      if (b.type === "text" && b.text === undefined && b.payload === undefined) {
        return { path: ["text"], message: "a text message needs text" }
      }
      return undefined
    })
  ),
  "SandboxInbound"
)
export type SandboxInbound = typeof SandboxInbound.Type

/** 202 of the sandbox inbound route: the upstream-style id of the injected message (`wamid.…` or `m_…`). */
export const SandboxInboundAccepted = Schema.Struct({ message_id: Schema.String }).annotations({
  identifier: "SandboxInboundAccepted"
})
export type SandboxInboundAccepted = typeof SandboxInboundAccepted.Type
