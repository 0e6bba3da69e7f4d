import { SqlClient } from "@effect/sql"
import {
  ChatOnly,
  type MarkRead,
  type MarkReadResult,
  type SendMessage,
  type SendResult,
  SendUpstreamError,
  TemplateQuotaExceeded,
  type ValidationIssue,
  ValidationFailed
} from "@platform/shared"
import { Effect } from "effect"
import { eventsCommitted } from "../delivery/wakeup.js"
import type { UpstreamCallError, UpstreamRequestInvalid } from "../upstream/errors.js"
import { toSendErrorBody, UPSTREAM_THROTTLED } from "../upstream/errors.js"
import { socialSupports } from "../upstream/message-payload.js"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { CAPTION_MAX_CHARS, longerThan, TEXT_MAX_CHARS, tooLong } from "../channels/text-limits.js"
import { Idempotency, requestHash, type StoredResponse } from "./idempotency.js"
import { lastInboundMessage, localTemplate, recordFailed, recordSent, type SendOwner } from "./message-statements.js"
import { checkTemplateParameters } from "../templates/template-parameters.js"
import { Usage } from "../accounts/usage.js"

/** A response stored under the Idempotency-Key earlier, to be replayed verbatim. */
export interface Replayed {
  readonly _tag: "Replayed"
  readonly response: StoredResponse
}

export type SendError = ChatOnly | SendUpstreamError | TemplateQuotaExceeded | ValidationFailed

const invalid = (loc: ReadonlyArray<string | number>, msg: string, input: unknown): ValidationFailed =>
  new ValidationFailed({
    detail: [{ loc: ["body", ...loc], msg, type: "value_error", input: input === undefined ? null : input, ctx: {} }]
  })

/** The first length limit a send exceeds on this kind of channel, if any. */
const lengthIssue = (kind: UsableChannel["type"], body: SendMessage): ValidationFailed | undefined => {
  if (body.type === "text" && body.text !== undefined && longerThan(body.text, TEXT_MAX_CHARS[kind])) {
    return tooLong(["text"], TEXT_MAX_CHARS[kind], body.text)
  }
  const caption = kind === "chat" && (body.type === "image" || body.type === "video" || body.type === "document")
    ? body.media?.caption
    : undefined
  return caption !== undefined && longerThan(caption, CAPTION_MAX_CHARS) ? tooLong(["media", "caption"], CAPTION_MAX_CHARS, caption) : undefined
}

/** The conversation's peer: WhatsApp's wa_id (digits) on chat, the sender-scoped id on social. */
const peerOf = (channel: UsableChannel, to: string, answered: string | null) =>
  channel.type === "chat" ? (answered ?? to).replace(/\D/g, "") || to : to

const json = (value: unknown) => JSON.stringify(value)

/** The channel's own throttle refused the call: nothing reached the upstream. */
const throttledHere = (e: UpstreamCallError) => e._tag === "UpstreamThrottled"

/**
 * POST /messages and /messages/mark-read (SPEC §4.1). Every rule that can refuse a
 * send runs before the upstream call (ownership, chat_only, channel-kind fields,
 * local template parameters, the template quota); a send that reached the upstream
 * is recorded in ONE statement (contact, conversation and its counters, message,
 * message.sent, the idempotency outcome), whether it succeeded or failed. A broadcast's
 * recipient takes the same rules and record through `prepare` and `deliver`, its own
 * outcome written by the broadcast side (broadcast-recipient-send.ts).
 */
export class Messages extends Effect.Service<Messages>()("@platform/server/Messages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channels = yield* ChannelCredentialsCache
    const upstream = yield* Upstream
    const usage = yield* Usage
    const idempotency = yield* Idempotency

    /**
     * Rules that depend on the channel kind or on stored rows; 400/422 before any upstream call.
     * A broadcast's recipient runs them too (broadcast-recipient-send.ts): a refusal is its failed state.
     */
    const prepare = (channel: UsableChannel, body: SendMessage) =>
      Effect.gen(function*() {
        if (channel.type === "social" && !socialSupports(body.type)) {
          return yield* new ChatOnly({ message: `type ${body.type} is supported only on chat channels; channel ${channel.id} is a social channel` })
        }
        const overLimit = lengthIssue(channel.type, body)
        if (overLimit !== undefined) return yield* overLimit
        if (channel.type === "chat" && body.type === "document" && body.media?.link !== undefined && !/\S/u.test(body.media.filename ?? "")) {
          return yield* invalid(["media", "filename"], "a document sent by link on a chat channel needs media.filename", body.media)
        }
        if (channel.type === "chat" && body.type === "typing" && body.context === undefined) {
          // WhatsApp shows typing against the inbound message being answered: the latest one from this peer.
          const answered = yield* lastInboundMessage(sql, channel, peerOf(channel, body.to, null))
          if (answered === undefined) {
            return yield* invalid(
              ["context", "message_id"],
              `no inbound message from ${body.to} to answer: on chat channels typing is shown against an inbound message (pass context.message_id)`,
              null
            )
          }
          return { ...body, context: { message_id: answered } } satisfies SendMessage as SendMessage
        }
        if (body.type === "template") {
          const template = yield* localTemplate(sql, channel, body.template_name ?? "", body.language_code ?? "")
          if (template !== undefined) {
            const issues: ReadonlyArray<ValidationIssue> = checkTemplateParameters(template, body.components)
            if (issues.length > 0) return yield* new ValidationFailed({ detail: issues })
          }
        }
        return body
      })

    const consumeTemplateQuota = (accountId: number) =>
      usage.consume(accountId, "template_messages").pipe(
        Effect.catchTag("QuotaExceeded", (e) =>
          Effect.fail(TemplateQuotaExceeded.withReason(
            `the ${e.plan} plan's ${e.limit} template messages for this month are used up; upgrade the plan or wait for the reset on the 1st (UTC)`
          )))
      )

    const requestInvalid = (e: UpstreamRequestInvalid): ChatOnly | ValidationFailed =>
      e.code === "chat_only" ? new ChatOnly({ message: e.message }) : invalid([], e.message, null)

    /**
     * A prepared send from the template quota to the record: what POST /messages and a
     * broadcast's recipient share. The outcome's `owner` is written in the record's
     * statement: the claimed Idempotency-Key, or the broadcast recipient's own writes.
     * A request the upstream client refused, or a failure that `unsent` picks, sent
     * nothing: the quota is given back, nothing is recorded, and the caller answers it.
     * `onUpstream` receives the upstream call's duration (Server-Timing).
     */
    const deliver = (
      channel: UsableChannel,
      body: SendMessage,
      owner: SendOwner,
      unsent: (e: UpstreamCallError) => boolean,
      onUpstream: (ms: number) => void
    ) =>
      Effect.gen(function*() {
        if (body.type === "template") yield* consumeTemplateQuota(channel.account_id)
        const { channel_id: _, ...upstreamInput } = body
        const started = performance.now()
        const outcome = yield* upstream.sendMessage(channel.creds, upstreamInput).pipe(
          Effect.either,
          Effect.ensuring(Effect.sync(() => onUpstream(performance.now() - started)))
        )
        const key = owner.source === "api" ? owner.key : undefined
        if (outcome._tag === "Left") {
          const e = outcome.left
          if (body.type === "template") yield* usage.refund(channel.account_id, "template_messages")
          if (e._tag === "UpstreamRequestInvalid" || unsent(e)) return { _tag: "Unsent", error: e } as const
          const envelope = toSendErrorBody(e)
          const kept = key === undefined ? null : { key, body: json(envelope) }
          if (body.type === "typing") {
            if (kept !== null) yield* idempotency.complete(channel.account_id, kept.key, { status: 502, body: kept.body })
          } else {
            yield* recordFailed(sql, channel, body, peerOf(channel, body.to, null), envelope, kept, owner)
          }
          return { _tag: "Failed", envelope } as const
        }
        const sent = outcome.right
        const result: SendResult = { channel_id: channel.id, message_id: sent.message_id ?? "", type: body.type }
        const kept = key === undefined ? null : { key, body: json(result) }
        if (body.type === "typing") {
          // Typing creates no message: nothing to record but the idempotency outcome.
          if (kept !== null) yield* idempotency.complete(channel.account_id, kept.key, { status: 200, body: kept.body })
          return { _tag: "Sent", result } as const
        }
        yield* recordSent(sql, channel, body, peerOf(channel, body.to, sent.recipient_id), sent.message_id, kept, owner)
        yield* eventsCommitted
        return { _tag: "Sent", result } as const
      })

    /**
     * One send of POST /messages. Refused before the upstream (the request, or the
     * channel's own throttle: "retry shortly" must be able to send) it is unrecorded, and
     * the key is released (see `send`); any other upstream failure is a failed record.
     */
    const sendOnce = (
      accountId: number,
      input: SendMessage,
      key: string | undefined,
      onUpstream: (ms: number) => void
    ) =>
      Effect.gen(function*() {
        const channel = yield* channels.get(accountId, input.channel_id)
        const body = yield* prepare(channel, input)
        const outcome = yield* deliver(channel, body, { source: "api", key }, throttledHere, onUpstream)
        if (outcome._tag === "Sent") return outcome.result
        if (outcome._tag === "Failed") return yield* new SendUpstreamError(outcome.envelope)
        const e = outcome.error
        return yield* e._tag === "UpstreamRequestInvalid" ? requestInvalid(e) : new SendUpstreamError(toSendErrorBody(e))
      })

    /**
     * POST /messages with the Idempotency-Key rules of DESIGN §5: a completed key
     * answers `Replayed`; the claim is released when the send ends before reaching
     * the upstream (400, 404, 422, 429, and the 502 `upstream_throttled` of the
     * channel's own throttle) so a retry may reuse the key.
     */
    const send = Effect.fn("Messages.send")(function*(
      accountId: number,
      input: SendMessage,
      key: string | undefined,
      onUpstream: (ms: number) => void = () => {}
    ) {
      if (key === undefined) return yield* sendOnce(accountId, input, undefined, onUpstream)
      const claim = yield* idempotency.claim(accountId, key, requestHash("POST /platform/v1/messages", input))
      if (claim._tag === "Replay") return { _tag: "Replayed", response: claim.response } satisfies Replayed
      return yield* Effect.uninterruptibleMask((restore) =>
        restore(sendOnce(accountId, input, key, onUpstream)).pipe(
          Effect.onExit((exit) =>
            exit._tag === "Success" ||
              (exit.cause._tag === "Fail" && exit.cause.error._tag === "SendUpstreamError" &&
                exit.cause.error.error !== UPSTREAM_THROTTLED)
              ? Effect.void
              : idempotency.release(accountId, key)
          )
        )
      )
    })

    /** Read receipt (SPEC §4.1): not a message, not billable, no counter. */
    const markRead = Effect.fn("Messages.markRead")(function*(accountId: number, input: MarkRead) {
      const channel = yield* channels.get(accountId, input.channel_id)
      return yield* upstream.markRead(channel.creds, input.message_id).pipe(
        Effect.map((r): MarkReadResult => ({ message_id: r.message_id, status: r.status })),
        Effect.mapError((e): ChatOnly | ValidationFailed | SendUpstreamError =>
          e._tag === "UpstreamRequestInvalid" ? requestInvalid(e) : new SendUpstreamError(toSendErrorBody(e))
        )
      )
    })

    /** The stored active template a send names; broadcasts check their components against it too. */
    const storedTemplate = (channel: Pick<UsableChannel, "id" | "account_id">, name: string, language: string) =>
      localTemplate(sql, channel, name, language)

    return { send, markRead, prepare, deliver, localTemplate: storedTemplate } as const
  }),
  dependencies: [ChannelCredentialsCache.Default, Idempotency.Default, Usage.Default]
}) {}
