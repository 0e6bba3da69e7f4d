import { SqlClient } from "@effect/sql"
import {
  ChatOnly,
  IdempotencyKeyReused,
  type MarkRead,
  type MarkReadResult,
  type SendMessage,
  SendOutcomePending,
  type SendResult,
  SendUpstreamError,
  TemplateQuotaExceeded,
  type ValidationIssue,
  ValidationFailed
} from "@platform/shared"
import { Duration, Effect, Option, Schedule } from "effect"
import { PgPool } from "../db/client.js"
import { makePrepared } from "../db/prepared.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import type { UpstreamCallError, UpstreamRequestInvalid } from "../upstream/errors.js"
import { toSendErrorBody, UPSTREAM_THROTTLED } from "../upstream/errors.js"
import { socialSupports } from "../upstream/message-payload.js"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { CAPTION_MAX_CHARS, longerThan, TEXT_MAX_CHARS, tooLong } from "../channels/text-limits.js"
import { type HeldOutcome, HeldOutcomes } from "./held-outcomes.js"
import { Idempotency, requestHash, type StoredResponse } from "./idempotency.js"
import {
  alreadyRecorded,
  lastInboundMessage,
  templateStanding,
  recordFailed,
  recordSent,
  type ClaimedKey,
  type SendOwner
} from "./message-statements.js"
import { checkTemplateParameters } from "../templates/template-parameters.js"
import { Usage } from "../accounts/usage.js"
import { countEvents, countRateLimited } from "../telemetry/metrics.js"
import { currentTraceParent } from "../telemetry/tracing.js"

/** A response stored under the Idempotency-Key earlier, to be replayed verbatim. */
export interface Replayed {
  readonly _tag: "Replayed"
  readonly response: StoredResponse
}

export type SendError = ChatOnly | SendOutcomePending | SendUpstreamError | TemplateQuotaExceeded | ValidationFailed

/**
 * How the outcome of a send that reached the upstream was recorded: at once, or held
 * until the database returns (HeldOutcomes), `written` ending when it is.
 */
export type Recorded =
  | { readonly _tag: "Written" }
  | { readonly _tag: "Held"; readonly written: Effect.Effect<void> }

const WRITTEN: Recorded = { _tag: "Written" }

/*
 * The record of an answered send is tried three times within about 300 ms (a connection
 * that died idle fails one statement, the next one connects afresh) and waited for at
 * most 5 s (a black-holed database never answers) before it is held: the caller hears
 * back while the outcome waits for the database.
 */
const RECORD_RETRY = Schedule.exponential(Duration.millis(100)).pipe(Schedule.intersect(Schedule.recurs(2)))
const RECORD_WAIT = Duration.seconds(5)

const pendingMessage = (id: string | null, keyed: boolean) =>
  `the upstream accepted the message${id === null || id === "" ? "" : ` (meta_message_id ${id})`}; it will be recorded when ` +
  (keyed
    ? "the database returns: retry with the same Idempotency-Key for the recorded reply"
    : "the database returns: do not send it again")

const invalid = (
  loc: ReadonlyArray<string | number>,
  msg: string,
  input: unknown,
  type = "value_error",
  ctx: Record<string, unknown> = {}
): ValidationFailed =>
  new ValidationFailed({
    detail: [{ loc: ["body", ...loc], msg, type, input: input === undefined ? null : input, ctx }]
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
    const heldOutcomes = yield* HeldOutcomes
    const prepared = makePrepared(yield* Effect.serviceOption(PgPool))

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
          const name = body.template_name ?? ""
          const language = body.language_code ?? ""
          const standing = yield* templateStanding(sql, channel, name, language)
          if (standing.template !== undefined) {
            const issues: ReadonlyArray<ValidationIssue> = checkTemplateParameters(standing.template, body.components)
            if (issues.length > 0) return yield* new ValidationFailed({ detail: issues })
          } else if (!standing.known && standing.synced_at !== null) {
            // After a sync the platform knows the WABA's templates: Meta would answer 132001.
            return yield* invalid(
              ["template_name"],
              `channel ${channel.id} has no template ${name} in ${language} (its templates were last synced at ` +
                `${standing.synced_at.toISOString()}); create it with POST /platform/v1/templates, or run ` +
                `POST /platform/v1/templates/sync if it was made in WhatsApp Manager since`,
              name,
              "template_not_found",
              { language_code: language, templates_synced_at: standing.synced_at.toISOString() }
            )
          }
        }
        return body
      })

    const consumeTemplateQuota = (accountId: number) =>
      usage.consume(accountId, "template_messages").pipe(
        Effect.catchTag("QuotaExceeded", (e) => {
          countRateLimited("template_quota")
          return Effect.fail(TemplateQuotaExceeded.withReason(
            `the ${e.plan} plan's ${e.limit} template messages for this month are used up; upgrade the plan or wait for the reset on the 1st (UTC)`
          ))
        })
      )

    const requestInvalid = (e: UpstreamRequestInvalid): ChatOnly | ValidationFailed =>
      e.code === "chat_only" ? new ChatOnly({ message: e.message }) : invalid([], e.message, null)

    // The process's own clock, taken when the service is built: see `record`.
    const clock = yield* Effect.clock
    const announce = Option.match(yield* Effect.serviceOption(DeliveryWakeup), {
      onNone: () => Effect.void,
      onSome: (wakeup) => wakeup.eventsWritten
    })

    /**
     * Writes the record of an answered send (`write`, which may run again after an attempt
     * whose answer was lost), or holds it when the database does not take it: the upstream
     * has already acted, so the outcome is never dropped (HeldOutcomes). Its retries and
     * its wait run on the process's clock, as the held outcomes' loop does, whatever clock
     * the caller runs on: they measure a real database for a real client.
     */
    const record = (
      write: (sentAt: Date | undefined) => Effect.Effect<void, unknown>,
      held: Omit<HeldOutcome, "write">,
      sentAt: Date
    ) =>
      write(undefined).pipe(
        Effect.catchAllDefect(Effect.fail),
        Effect.retry(RECORD_RETRY),
        Effect.timeoutFail({ duration: RECORD_WAIT, onTimeout: () => new Error("the database did not answer in time") }),
        Effect.withClock(clock),
        Effect.as(WRITTEN),
        Effect.catchAll((error) =>
          Effect.map(heldOutcomes.hold({ ...held, write: write(sentAt) }, error), (written): Recorded => ({ _tag: "Held", written }))
        )
      )

    /**
     * A prepared send from the template quota to the record: what POST /messages and a
     * broadcast's recipient share. The outcome's `owner` is written in the record's
     * statement: the claimed Idempotency-Key, or the broadcast recipient's own writes.
     * A request the upstream client refused, or a failure that `unsent` picks, sent
     * nothing: the quota is given back, nothing is recorded, and the caller answers it.
     * Any other answer is recorded (`record`), held through a database outage if need be;
     * from the upstream's answer to that point nothing interrupts it, so an answered send
     * is never left unrecorded by a client that went away. New sends are refused before
     * the upstream while an outcome is held and the database is unreachable (`admit`).
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
        yield* heldOutcomes.admit
        if (body.type === "template") yield* consumeTemplateQuota(channel.account_id)
        const { channel_id: _, ...upstreamInput } = body
        return yield* Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
          const started = performance.now()
          // Interruptible while it waits for its throttle slot or its answer (a stopping pass, a shutdown); not once answered.
          const outcome = yield* restore(upstream.sendMessage(channel.creds, upstreamInput)).pipe(
            Effect.either,
            Effect.ensuring(Effect.sync(() => onUpstream(performance.now() - started)))
          )
          const sentAt = new Date()
          const claimed = owner.source === "api" ? owner.claimed : undefined
          const holding = { accountId: channel.account_id, channelId: channel.id }
          if (outcome._tag === "Left") {
            const e = outcome.left
            if (e._tag === "UpstreamRequestInvalid" || unsent(e)) {
              if (body.type === "template") yield* usage.refund(channel.account_id, "template_messages")
              return { _tag: "Unsent", error: e } as const
            }
            const envelope = toSendErrorBody(e)
            const kept = claimed === undefined ? null : { key: claimed.key, body: json(envelope) }
            // The unit is given back once, by the first attempt of the record that gets that far.
            let refunded = body.type !== "template"
            const write = () =>
              Effect.gen(function*() {
                if (!refunded) {
                  yield* usage.refund(channel.account_id, "template_messages")
                  refunded = true
                }
                if (body.type === "typing") {
                  if (kept !== null) yield* idempotency.complete(channel.account_id, kept.key, { status: 502, body: kept.body })
                } else {
                  yield* prepared(recordFailed(sql, channel, body, peerOf(channel, body.to, null), envelope, kept, owner))
                }
              })
            const recorded = yield* record(write, {
              ...holding,
              metaMessageId: null,
              ...(kept === null ? {} : { claimed: { ...claimed!, reply: { status: 502, body: kept.body } } })
            }, sentAt)
            return { _tag: "Failed", envelope, recorded } as const
          }
          const sent = outcome.right
          const result: SendResult = { channel_id: channel.id, message_id: sent.message_id ?? "", type: body.type }
          const kept = claimed === undefined ? null : { key: claimed.key, body: json(result) }
          if (body.type === "typing") {
            // Typing creates no message: nothing to record but the idempotency outcome, whose reply is known.
            if (kept === null) return { _tag: "Sent", result, recorded: WRITTEN } as const
            const reply = { status: 200, body: kept.body }
            const recorded = yield* record(() => idempotency.complete(channel.account_id, kept.key, reply), {
              ...holding,
              metaMessageId: null,
              claimed: { ...claimed!, reply }
            }, sentAt)
            return { _tag: "Sent", result, recorded } as const
          }
          const peer = peerOf(channel, body.to, sent.recipient_id)
          const write = (at: Date | undefined) =>
            Effect.flatMap(currentTraceParent, (traceParent) =>
              prepared(recordSent(sql, channel, body, peer, sent.message_id, kept, owner, at, traceParent))).pipe(
              Effect.tap((rows) => Effect.sync(() => countEvents(rows[0]?.event_types))),
              Effect.asVoid,
              Effect.catchIf(alreadyRecorded, () => Effect.void),
              Effect.zipRight(announce)
            )
          const recorded = yield* record(write, {
            ...holding,
            metaMessageId: sent.message_id,
            ...(claimed === undefined ? {} : { claimed: { ...claimed, reply: undefined } })
          }, sentAt)
          return { _tag: "Sent", result, recorded } as const
        }))
      })

    /**
     * One send of POST /messages. Refused before the upstream (the request, or the
     * channel's own throttle: "retry shortly" must be able to send) it is unrecorded, and
     * the key is released (see `send`); any other upstream failure is a failed record.
     */
    const sendOnce = (
      accountId: number,
      input: SendMessage,
      claimed: ClaimedKey | undefined,
      onUpstream: (ms: number) => void
    ) =>
      Effect.gen(function*() {
        const channel = yield* channels.get(accountId, input.channel_id)
        const body = yield* prepare(channel, input)
        const outcome = yield* deliver(channel, body, { source: "api", claimed }, throttledHere, onUpstream)
        if (outcome._tag === "Sent") {
          // A message the upstream accepted whose record waits for the database: 503 outcome_pending, never a 2xx
          // (SPEC's 200 says it is recorded, and a client reads it or waits for its event) nor a bare 5xx.
          if (outcome.recorded._tag === "Held" && body.type !== "typing") {
            return yield* new SendOutcomePending({
              meta_message_id: outcome.result.message_id,
              message: pendingMessage(outcome.result.message_id, claimed !== undefined)
            })
          }
          return outcome.result
        }
        if (outcome._tag === "Failed") return yield* new SendUpstreamError(outcome.envelope)
        const e = outcome.error
        return yield* e._tag === "UpstreamRequestInvalid" ? requestInvalid(e) : new SendUpstreamError(toSendErrorBody(e))
      })

    /**
     * POST /messages with the Idempotency-Key rules of DESIGN §5: a completed key
     * answers `Replayed`; the claim is released when the send ends before reaching
     * the upstream (400, 404, 422, 429, and the 502 `upstream_throttled` of the
     * channel's own throttle) so a retry may reuse the key. A key whose outcome this
     * process holds through a database outage is answered from memory, before any
     * claim: the outage may have outlasted STALE_IN_FLIGHT_SECONDS, and a claim taken
     * over would send the message again.
     */
    const send = Effect.fn("Messages.send")(function*(
      accountId: number,
      input: SendMessage,
      key: string | undefined,
      onUpstream: (ms: number) => void = () => {}
    ) {
      if (key === undefined) return yield* sendOnce(accountId, input, undefined, onUpstream)
      const hash = requestHash("POST /platform/v1/messages", input)
      const held = heldOutcomes.heldKey(accountId, key)
      if (held !== undefined) {
        if (held.hash !== hash) return yield* new IdempotencyKeyReused()
        if (held.reply !== undefined) return { _tag: "Replayed", response: held.reply } satisfies Replayed
        return yield* new SendOutcomePending({ meta_message_id: held.metaMessageId, message: pendingMessage(held.metaMessageId, true) })
      }
      const claim = yield* idempotency.claim(accountId, key, hash)
      if (claim._tag === "Replay") return { _tag: "Replayed", response: claim.response } satisfies Replayed
      return yield* Effect.uninterruptibleMask((restore) =>
        restore(sendOnce(accountId, input, { key, hash }, onUpstream)).pipe(
          Effect.onExit((exit) =>
            exit._tag === "Success" ||
              (exit.cause._tag === "Fail" && (exit.cause.error._tag === "SendOutcomePending" ||
                (exit.cause.error._tag === "SendUpstreamError" && exit.cause.error.error !== UPSTREAM_THROTTLED)))
              ? Effect.void
              : idempotency.release(accountId, key).pipe(
                // Nothing was sent: a claim the database did not let go is taken over once stale.
                Effect.catchAllCause((cause) => Effect.logWarning("an Idempotency-Key claim was not released", cause))
              )
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

    /** The stored template a send names and what the channel knows of it; broadcasts check theirs against it too. */
    const standingOf = (channel: Pick<UsableChannel, "id" | "account_id">, name: string, language: string) =>
      templateStanding(sql, channel, name, language)

    return { send, markRead, prepare, deliver, templateStanding: standingOf } as const
  }),
  dependencies: [ChannelCredentialsCache.Default, HeldOutcomes.Default, Idempotency.Default, Usage.Default]
}) {}
