import { Effect, Either, Schema } from "effect"
import { type GraphClient, requireChat, requireSocial } from "./client.js"
import type { ChannelCredentials } from "./credentials.js"
import { UpstreamRequestInvalid } from "./errors.js"
import {
  chatReadPayload,
  type SendMessageInput,
  socialSenderAction,
  toChatPayload,
  toSocialPayload
} from "./message-payload.js"
import { channelRate, type Throttle, throttleSender } from "./throttle.js"

const ChatSendResponse = Schema.Struct({
  messaging_product: Schema.optional(Schema.String),
  contacts: Schema.optional(Schema.Array(Schema.Struct({ input: Schema.optional(Schema.String), wa_id: Schema.optional(Schema.String) }))),
  messages: Schema.NonEmptyArray(Schema.Struct({ id: Schema.String, message_status: Schema.optional(Schema.String) }))
})

const SocialSendResponse = Schema.Struct({
  recipient_id: Schema.optional(Schema.String),
  message_id: Schema.optional(Schema.String)
})

const Acknowledged = Schema.Struct({ success: Schema.optional(Schema.Boolean), recipient_id: Schema.optional(Schema.String) })

export interface SentMessage {
  /** `wamid.…` (chat) or `m_…`/mid (social); null for typing, which creates no message. */
  readonly message_id: string | null
  /** WhatsApp's wa_id of the recipient or Instagram's recipient_id when answered. */
  readonly recipient_id: string | null
  /** WhatsApp's message_status (`accepted`, `held_for_quality_assessment`) when answered. */
  readonly message_status: string | null
}

export const makeMessagesApi = (graph: GraphClient, throttle: Throttle) => {
  const post = <A, I>(creds: ChannelCredentials, path: string, operation: string, json: unknown, schema: Schema.Schema<A, I>) =>
    throttle.acquire(throttleSender(creds), channelRate(creds)).pipe(
      Effect.zipRight(graph.call({ operation, method: "POST", path, token: creds.access_token, json }, schema))
    )

  /**
   * Sends one of the 13 message types. Typing takes this path too (operation
   * `messages.typing`): WhatsApp's typing indicator on the inbound message in
   * `context` (which marks it read), Instagram's `typing_on` sender action; it
   * creates no message, so its `message_id` is null.
   */
  const sendMessage = (creds: ChannelCredentials, send: SendMessageInput) =>
    Effect.gen(function*() {
      if (creds.kind === "chat") {
        const pnid = yield* requireChat(creds, "send message")
        const payload = yield* Either.match(toChatPayload(send), { onLeft: Effect.fail, onRight: Effect.succeed })
        if (send.type === "typing") {
          yield* post(creds, `/${pnid}/messages`, "messages.typing", payload, Acknowledged)
          return { message_id: null, recipient_id: send.to, message_status: null } satisfies SentMessage
        }
        const res = yield* post(creds, `/${pnid}/messages`, "messages.send", payload, ChatSendResponse)
        return {
          message_id: res.messages[0].id,
          recipient_id: res.contacts?.[0]?.wa_id ?? null,
          message_status: res.messages[0].message_status ?? null
        } satisfies SentMessage
      }
      const socialId = yield* requireSocial(creds, "send message")
      const payload = yield* Either.match(toSocialPayload(send), { onLeft: Effect.fail, onRight: Effect.succeed })
      const res = yield* post(
        creds,
        `/${socialId}/messages`,
        send.type === "typing" ? "messages.typing" : "messages.send",
        payload,
        SocialSendResponse
      )
      return {
        message_id: send.type === "typing" ? null : res.message_id ?? null,
        recipient_id: res.recipient_id ?? null,
        message_status: null
      } satisfies SentMessage
    })

  /**
   * Chat: marks the inbound message `message_id` read. Social: `message_id` is the
   * participant's id and the whole conversation is marked seen (SPEC §4.1).
   */
  const markRead = (creds: ChannelCredentials, messageId: string) =>
    Effect.gen(function*() {
      if (messageId.length === 0) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "message_id is required" }))
      }
      if (creds.kind === "chat") {
        const pnid = yield* requireChat(creds, "mark read")
        yield* post(creds, `/${pnid}/messages`, "messages.mark_read", chatReadPayload(messageId), Acknowledged)
      } else {
        const socialId = yield* requireSocial(creds, "mark read")
        yield* post(creds, `/${socialId}/messages`, "messages.mark_read", socialSenderAction(messageId, "mark_seen"), Acknowledged)
      }
      return { message_id: messageId, status: "read" as const }
    })

  return { sendMessage, markRead }
}
