import * as HttpClient from "@effect/platform/HttpClient"
import { Clock, Effect } from "effect"
import { AppConfig } from "../../config.js"
import { UpstreamRequestInvalid } from "../errors.js"
import { chatEchoPayload, chatInboundPayload, socialInboundPayload } from "./payloads.js"
import { postSignedWebhook, type SandboxWebhookFailed } from "./webhook-poster.js"

export interface InjectInboundInput {
  /** The channel as the upstream knows it; `ChannelCredentials` fits. */
  readonly channel: {
    readonly kind: "chat" | "social"
    readonly phone_number_id?: string | undefined
    readonly waba_id?: string | undefined
    readonly social_id?: string | undefined
    readonly display_phone_number?: string | undefined
  }
  /** The end user: a WhatsApp number (wa_id) or an Instagram-scoped user id. */
  readonly from: string
  readonly profile_name?: string | undefined
  /** Shortcut for a text message. */
  readonly text?: string | undefined
  /**
   * Any other message type with its object as WhatsApp (chat) or Instagram
   * (social: the attachment payload, or `{message_id, emoji}` for reaction) writes it.
   */
  readonly type?: string | undefined
  readonly payload?: unknown
  /** Makes the inbound message a reply to this message id. */
  readonly context_message_id?: string | undefined
  /** Chat only: the owner's own message from the chat app to `from` (an `smb_message_echoes` change). */
  readonly echo?: boolean | undefined
}

export interface InjectedInbound {
  /** The inbound message id (wamid or mid). */
  readonly message_id: string
  /** The exact signed bytes posted to /webhook/incoming. */
  readonly body: string
  /** The status /webhook/incoming answered. */
  readonly status: number
}

/**
 * Posts an inbound message to `/webhook/incoming` exactly as Meta would: a
 * WhatsApp `messages` change (routed by metadata.phone_number_id) or an Instagram
 * `messaging` entry (routed by entry.id), signed with META_APP_SECRET.
 */
export const injectInbound = (
  input: InjectInboundInput
): Effect.Effect<InjectedInbound, UpstreamRequestInvalid | SandboxWebhookFailed, AppConfig | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const http = yield* HttpClient.HttpClient
    const nowMs = yield* Clock.currentTimeMillis
    const type = input.type ?? (input.text !== undefined ? "text" : undefined)
    if (!type) {
      return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "give text, or type and payload" }))
    }
    if (type !== "text" && input.payload === undefined) {
      return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: `type ${type} needs a payload` }))
    }
    let built: { readonly id: string; readonly body: unknown }
    if (input.channel.kind === "chat") {
      const pnid = input.channel.phone_number_id
      if (!pnid) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "a chat channel needs phone_number_id" }))
      }
      const line = {
        phone_number_id: pnid,
        waba_id: input.channel.waba_id ?? pnid,
        display_phone_number: input.channel.display_phone_number ?? "15550000000"
      }
      const content = type === "text" && input.payload === undefined ? { body: input.text ?? "" } : input.payload
      built = input.echo === true
        ? chatEchoPayload({ line, to: input.from, type, content, nowMs })
        : chatInboundPayload({
          line,
          from: input.from,
          profile_name: input.profile_name ?? "Sandbox User",
          type,
          content,
          context_message_id: input.context_message_id,
          nowMs
        })
    } else {
      const accountId = input.channel.social_id
      if (!accountId) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "a social channel needs social_id" }))
      }
      built = socialInboundPayload({
        account_id: accountId,
        from: input.from,
        type,
        text: input.text,
        content: input.payload,
        reply_to_mid: input.context_message_id,
        nowMs
      })
    }
    const posted = yield* postSignedWebhook(config, http, built.body)
    return { message_id: built.id, body: posted.body, status: posted.status }
  })
