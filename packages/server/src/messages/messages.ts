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
import { STATUS_EVENTS, STATUS_RANK, statusRankSql } from "../outbox/statuses.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { CAPTION_MAX_CHARS, longerThan, TEXT_MAX_CHARS, tooLong } from "../channels/text-limits.js"
import { envelopeSql, messageDataSql, newEventId } from "../outbox/events.js"
import { Idempotency, requestHash, type StoredResponse } from "./idempotency.js"
import { checkTemplateParameters, type StoredTemplate } from "../templates/template-parameters.js"
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

/** What the stored record keeps of each type (DESIGN §5 `payload`: the type's object). */
const payloadOf = (body: SendMessage): unknown => {
  const context = body.context !== undefined ? { context: body.context } : {}
  switch (body.type) {
    case "text":
      return { ...(body.preview_url !== undefined ? { preview_url: body.preview_url } : {}), ...context }
    case "template":
      return {
        template_name: body.template_name,
        language_code: body.language_code,
        ...(body.components !== undefined ? { components: body.components } : {})
      }
    case "image":
    case "video":
    case "audio":
    case "document":
    case "sticker":
      return { ...body.media, ...context }
    case "interactive":
    case "catalog":
      return { interactive: body.interactive, ...context }
    case "location":
      return { location: body.location, ...context }
    case "contacts":
      return { contacts: body.contacts, ...context }
    case "reaction":
      return body.reaction
    case "typing":
      return context
  }
}

const textOf = (body: SendMessage): string | null => {
  switch (body.type) {
    case "text":
      return body.text ?? null
    case "image":
    case "video":
    case "document":
      return body.media?.caption ?? null
    default:
      return null
  }
}

// The shared union does not narrow `media` to required per type (its members are built by spreading generic
// fields), so the optional reads below are only for the compiler: decoding guarantees the fields.
const mediaIdOf = (body: SendMessage): string | null => body.media?.id ?? null

/** The conversation's peer: WhatsApp's wa_id (digits) on chat, the sender-scoped id on social. */
const peerOf = (channel: UsableChannel, to: string, answered: string | null) =>
  channel.type === "chat" ? (answered ?? to).replace(/\D/g, "") || to : to

const json = (value: unknown) => JSON.stringify(value)

/** The channel's own throttle refused the call: nothing reached the upstream. */
const throttledHere = (e: UpstreamCallError) => e._tag === "UpstreamThrottled"

/** Refused for throughput, ours or Meta's (130429, call rate limits): the upstream accepted nothing. */
const refusedForThroughput = (e: UpstreamCallError) =>
  throttledHere(e) || (e._tag === "UpstreamError" && (e.kind === "throughput_limited" || e.kind === "rate_limited"))

const untimed = () => {}

/** `when '<status>' then '<event>'` for every status that becomes an event, and the list of those statuses. */
const STATUS_EVENT_CASES = Object.entries(STATUS_EVENTS).map(([s, e]) => `when '${s}' then '${e}'`).join(" ")
const STATUS_EVENT_VALUES = Object.keys(STATUS_EVENTS).map((s) => `'${s}'`).join(", ")

/** The data of a send's events (the send's `p`, its message `msg`, the event `e`): status ones add `error`. */
const SENT_EVENT_DATA = (error?: string) =>
  messageDataSql({
    id: "msg.id",
    conversationId: "msg.conversation_id",
    peer: "p.peer",
    direction: "'outbound'",
    source: "'api'",
    type: "p.type",
    text: "p.text",
    mediaId: "p.media_id",
    status: "e.status",
    metaMessageId: "p.meta_message_id",
    error
  })
const SENT_EVENT_ENVELOPE = envelopeSql({
  id: "e.event_id",
  event: "e.event_type",
  account: "p.account_id",
  channel: "p.channel_id",
  occurredAt: "p.occurred_at",
  data: `case when e.g = 0 then ${SENT_EVENT_DATA()} else ${SENT_EVENT_DATA("e.error")} end`
})

/**
 * POST /messages and /messages/mark-read (SPEC §4.1). Every rule that can refuse a
 * send runs before the upstream call (ownership, chat_only, channel-kind fields,
 * local template parameters, the template quota); a send that reached the upstream
 * is recorded in ONE statement (contact, conversation and its counters, message,
 * message.sent, the idempotency outcome), whether it succeeded or failed.
 */
export class Messages extends Effect.Service<Messages>()("@platform/server/Messages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const channels = yield* ChannelCredentialsCache
    const upstream = yield* Upstream
    const usage = yield* Usage
    const idempotency = yield* Idempotency

    const localTemplate = (channel: Pick<UsableChannel, "id" | "account_id">, name: string, language: string) =>
      sql<StoredTemplate>`
        select name, body_text, components, parameter_format from templates
        where platform_channel_id = ${channel.id} and developer_account_id = ${channel.account_id}
          and name = ${name} and language_code = ${language} and is_active
        limit 1`.pipe(Effect.orDie, Effect.map((rows) => rows[0]))

    const lastInboundMessage = (channel: UsableChannel, peer: string) =>
      sql<{ meta_message_id: string }>`
        select m.meta_message_id from conversations c
        join messages m on m.conversation_id = c.id
        where c.platform_channel_id = ${channel.id} and c.peer_id = ${peer}
          and m.direction = 'inbound' and m.meta_message_id is not null
        order by m.id desc limit 1`.pipe(Effect.orDie, Effect.map((rows) => rows[0]?.meta_message_id))

    /** Rules that depend on the channel kind or on stored rows; 400/422 before any upstream call. */
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
          const answered = yield* lastInboundMessage(channel, peerOf(channel, body.to, null))
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
          const template = yield* localTemplate(channel, body.template_name ?? "", body.language_code ?? "")
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

    /**
     * The whole record of a successful send, in one statement (DESIGN §8). Status
     * callbacks that arrived before this record (parked by the inbound statement)
     * are applied here in arrival order, never backwards, with the events they
     * would have written had they come after it; expired ones are only deleted.
     */
    const recordSent = (
      channel: UsableChannel,
      body: SendMessage,
      peer: string,
      upstreamId: string | null,
      kept: { readonly key: string; readonly body: string } | null,
      recipientId: number | null = null
    ) => {
      const eventId = newEventId()
      const now = new Date().toISOString()
      const chat = channel.type === "chat"
      const contact = chat
        ? sql`
          insert into contacts as k (developer_account_id, platform_channel_id, chat_id, phone)
          values (${channel.account_id}, ${channel.id}, ${peer}, ${peer})
          on conflict (platform_channel_id, chat_id) where chat_id is not null do update set last_seen_at = k.last_seen_at
          returning id`
        : sql`
          insert into contacts as k (developer_account_id, platform_channel_id, social_id)
          values (${channel.account_id}, ${channel.id}, ${peer})
          on conflict (platform_channel_id, social_id) where social_id is not null do update set last_seen_at = k.last_seen_at
          returning id`
      const text = textOf(body)
      const mediaId = mediaIdOf(body)
      const rank = statusRankSql("p.status")
      return sql<{ id: number; conversation_id: number }>`
        with contact as (${contact}),
        parked as (
          delete from parked_statuses p
          where ${upstreamId}::text is not null and p.platform_channel_id = ${channel.id} and p.meta_message_id = ${upstreamId}::text
          returning p.id, p.status, p.envelope, p.event_id, p.expires_at > now() as live, ${sql.unsafe(rank)} as r
        ),
        steps as (
          select q.* from (
            select p.*, max(p.r) over (order by p.id rows between unbounded preceding and 1 preceding) as prev
            from parked p where p.live
          ) q
          where q.r > greatest(${STATUS_RANK.sent}, coalesce(q.prev, 0))
        ),
        best as (select status, envelope from steps order by r desc limit 1),
        conv as (
          insert into conversations as cv (developer_account_id, platform_channel_id, platform_contact_id, peer_id,
            last_active_at, last_message_direction, last_message_preview, message_count, outbound_count)
          select ${channel.account_id}, ${channel.id}, contact.id, ${peer}, now(), 'outbound',
            left(coalesce(${text}::text, '[' || ${body.type}::text || ']'), 200), 1, 1
          from contact
          on conflict (platform_channel_id, peer_id) do update set
            last_active_at = now(),
            last_message_direction = 'outbound',
            last_message_preview = excluded.last_message_preview,
            message_count = cv.message_count + 1,
            outbound_count = cv.outbound_count + 1,
            platform_contact_id = coalesce(cv.platform_contact_id, excluded.platform_contact_id)
          returning id
        ),
        msg as (
          insert into messages (developer_account_id, platform_channel_id, conversation_id, contact_id, direction, source,
            type, text, payload, media_id, status, status_updated_at, meta_message_id, error)
          select ${channel.account_id}, ${channel.id}, conv.id, contact.id, 'outbound', ${recipientId === null ? "api" : "broadcast"},
            ${body.type}, ${text},
            ${json(payloadOf(body))}::jsonb, ${mediaId}, coalesce((select status from best), 'sent'), now(), ${upstreamId},
            (select envelope from best)
          from conv, contact
          returning id, conversation_id
        ),
        evt as (
          insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope, occurred_at)
          select e.event_id, p.account_id, p.channel_id, e.event_type, p.peer, ${sql.unsafe(SENT_EVENT_ENVELOPE)},
            ${now}::timestamptz
          from msg, (
            select 0 as g, 0::bigint as id, ${eventId}::text as event_id, 'message.sent'::text as event_type, 'sent'::text as status,
              null::json as error
            union all
            select 1, s.id, s.event_id, case s.status ${sql.unsafe(STATUS_EVENT_CASES)} end, s.status, s.envelope
            from steps s where s.status in (${sql.unsafe(STATUS_EVENT_VALUES)})
          ) e, (
            select ${channel.account_id}::bigint as account_id, ${channel.id}::bigint as channel_id, ${now}::timestamptz as occurred_at,
              ${peer}::text as peer, ${body.type}::text as type, ${text}::text as text, ${mediaId}::text as media_id,
              ${upstreamId}::text as meta_message_id
          ) p
          order by e.g, e.id
        ),
        kept as (
          update idempotency_keys set status = 'completed', response_status = 200, response_body = ${kept?.body ?? null}
          where ${kept !== null} and developer_account_id = ${channel.account_id} and key = ${kept?.key ?? ""}
          returning 1
        ),
        recipient as (
          update broadcast_recipients set status = 'sent', meta_message_id = ${upstreamId}, sent_at = now(),
            updated_at = now(), claimed_until = null, error = null
          where ${recipientId !== null} and id = ${recipientId ?? 0}
          returning 1
        )
        select msg.id, msg.conversation_id from msg`.pipe(
        Effect.orDie
      )
    }

    /** A send the upstream refused: the record stays, status failed with the envelope, no counters, no event. */
    const recordFailed = (
      channel: UsableChannel,
      body: SendMessage,
      peer: string,
      error: ReturnType<typeof toSendErrorBody>,
      kept: { readonly key: string; readonly body: string } | null,
      recipientId: number | null = null
    ) =>
      sql`
        with conv as (
          select id, platform_contact_id from conversations where platform_channel_id = ${channel.id} and peer_id = ${peer}
        ),
        msg as (
          insert into messages (developer_account_id, platform_channel_id, conversation_id, contact_id, direction, source,
            type, text, payload, media_id, status, status_updated_at, error)
          values (${channel.account_id}, ${channel.id}, (select id from conv), (select platform_contact_id from conv),
            'outbound', ${recipientId === null ? "api" : "broadcast"}, ${body.type}, ${textOf(body)}, ${json(payloadOf(body))}::jsonb, ${mediaIdOf(body)}, 'failed',
            now(), ${json(error)}::jsonb)
          returning id
        ),
        kept as (
          update idempotency_keys set status = 'completed', response_status = 502, response_body = ${kept?.body ?? null}
          where ${kept !== null} and developer_account_id = ${channel.account_id} and key = ${kept?.key ?? ""}
          returning 1
        ),
        recipient as (
          update broadcast_recipients set status = 'failed', error = ${json(error)}::jsonb, updated_at = now(),
            claimed_until = null
          where ${recipientId !== null} and id = ${recipientId ?? 0}
          returning 1
        )
        select (select count(*) from msg) as messages, (select count(*) from kept) as kept`.pipe(Effect.orDie)

    const requestInvalid = (e: UpstreamRequestInvalid): ChatOnly | ValidationFailed =>
      e.code === "chat_only" ? new ChatOnly({ message: e.message }) : invalid([], e.message, null)

    /**
     * A prepared send from the template quota to the record: what POST /messages and a
     * broadcast's recipient share. The outcome's owner is written in the record's
     * statement: `key`, the claimed Idempotency-Key, or `recipientId`, the broadcast
     * recipient's claimed row. A request the upstream client refused, or a failure that
     * `unsent` picks, sent nothing: the quota is given back, nothing is recorded, and
     * the caller answers it.
     * `onUpstream` receives the upstream call's duration (Server-Timing).
     */
    const deliver = (
      channel: UsableChannel,
      body: SendMessage,
      owner: { readonly key: string | undefined; readonly recipientId: number | null },
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
        if (outcome._tag === "Left") {
          const e = outcome.left
          if (body.type === "template") yield* usage.refund(channel.account_id, "template_messages")
          if (e._tag === "UpstreamRequestInvalid" || unsent(e)) return { _tag: "Unsent", error: e } as const
          const envelope = toSendErrorBody(e)
          const kept = owner.key === undefined ? null : { key: owner.key, body: json(envelope) }
          if (body.type === "typing") {
            if (kept !== null) yield* idempotency.complete(channel.account_id, kept.key, { status: 502, body: kept.body })
          } else {
            yield* recordFailed(channel, body, peerOf(channel, body.to, null), envelope, kept, owner.recipientId)
          }
          return { _tag: "Failed", envelope } as const
        }
        const sent = outcome.right
        const result: SendResult = { channel_id: channel.id, message_id: sent.message_id ?? "", type: body.type }
        const kept = owner.key === undefined ? null : { key: owner.key, body: json(result) }
        if (body.type === "typing") {
          // Typing creates no message: nothing to record but the idempotency outcome.
          if (kept !== null) yield* idempotency.complete(channel.account_id, kept.key, { status: 200, body: kept.body })
          return { _tag: "Sent", result } as const
        }
        yield* recordSent(channel, body, peerOf(channel, body.to, sent.recipient_id), sent.message_id, kept, owner.recipientId)
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
        const outcome = yield* deliver(channel, body, { key, recipientId: null }, throttledHere, onUpstream)
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

    /** A recipient refused before any upstream call: failed with the reason, no message record. */
    const recipientRefused = (recipientId: number, error: { readonly error: string; readonly message: string }) =>
      sql`
        update broadcast_recipients set status = 'failed', error = ${json(error)}::jsonb, updated_at = now(),
          claimed_until = null
        where id = ${recipientId} and status = 'pending'`.pipe(Effect.orDie, Effect.as("failed" as const))

    /**
     * One recipient of a broadcast (its claimed row `recipientId`): the same rules,
     * template quota, upstream call and record as a template send of POST /messages
     * (the message stored with source `broadcast`; its message.sent event says `api`,
     * the events' vocabulary for a send through the API),
     * with the recipient's outcome written in the record's statement, so that a
     * recorded send is never sent again. Refusals and upstream failures are the
     * recipient's `failed` state rather than errors; a throughput refusal (the
     * channel's own throttle, or Meta's 130429 and call rate limits, which accept
     * nothing) releases the claim (`throttled`: a later pass retries it).
     */
    const sendToRecipient = Effect.fn("Messages.sendToRecipient")(function*(
      channel: UsableChannel,
      input: SendMessage,
      recipientId: number
    ) {
      const prepared = yield* prepare(channel, input).pipe(Effect.either)
      if (prepared._tag === "Left") {
        const e = prepared.left
        return yield* recipientRefused(
          recipientId,
          e._tag === "ChatOnly"
            ? { error: "chat_only", message: e.message }
            : { error: "validation_failed", message: e.detail.map((i) => `${i.loc.slice(1).join(".")}: ${i.msg}`).join("; ") }
        )
      }
      const outcome = yield* deliver(channel, prepared.right, { key: undefined, recipientId }, refusedForThroughput, untimed)
        .pipe(Effect.either)
      if (outcome._tag === "Left") {
        return yield* recipientRefused(recipientId, { error: "template_quota_exceeded", message: outcome.left.detail })
      }
      if (outcome.right._tag === "Sent") return "sent" as const
      if (outcome.right._tag === "Failed") return "failed" as const
      const e = outcome.right.error
      if (e._tag === "UpstreamRequestInvalid") return yield* recipientRefused(recipientId, { error: e.code, message: e.message })
      // Refused for throughput (ours or Meta's, which accepted nothing): the recipient waits for a later pass.
      yield* sql`update broadcast_recipients set claimed_until = null where id = ${recipientId}`.pipe(Effect.orDie)
      return "throttled" as const
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

    return { send, markRead, sendToRecipient, localTemplate } as const
  })
}) {}
