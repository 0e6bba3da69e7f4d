import type { SqlClient, SqlError, Statement } from "@effect/sql"
import type { SendMessage } from "@platform/shared"
import { Effect } from "effect"
import type { SendErrorBody } from "../upstream/errors.js"
import { STATUS_EVENTS, STATUS_RANK, statusRankSql } from "../outbox/statuses.js"
import type { UsableChannel } from "../channels/channel-credentials.js"
import { envelopeSql, messageDataSql, newEventId } from "../outbox/events.js"
import type { StoredTemplate } from "../templates/template-parameters.js"

/** What the stored record keeps of each type (DESIGN §5 `payload`: the type's object). */
const payloadOf = (body: SendMessage): unknown => {
  const context = body.context !== undefined ? { context: body.context } : {}
  switch (body.type) {
    case "text":
      return { text: body.text, ...(body.preview_url !== undefined ? { preview_url: body.preview_url } : {}), ...context }
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

const json = (value: unknown) => JSON.stringify(value)

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
 * The writes a broadcast makes of its recipient's outcome. They run inside the
 * record's statement, so the record and the outcome commit together and a recorded
 * send is never sent again; the broadcast side owns them (messages never names its rows).
 */
export interface RecipientOutcome {
  readonly sent: (upstreamId: string | null) => Statement.Fragment
  readonly failed: (error: SendErrorBody) => Statement.Fragment
}

/** The Idempotency-Key a POST /messages claimed, with the hash of its request (which a retry must match). */
export interface ClaimedKey {
  readonly key: string
  readonly hash: string
}

/**
 * Who answers for a send, written in the record's statement: a POST /messages, with the
 * Idempotency-Key it claimed (if any), or a broadcast's recipient, with its outcome's writes.
 * The message's `source` is the owner's.
 */
export type SendOwner =
  | { readonly source: "api"; readonly claimed: ClaimedKey | undefined }
  | { readonly source: "broadcast"; readonly outcome: RecipientOutcome }

/** The Idempotency-Key outcome a record completes: the claimed key and the reply it stores. */
export interface Kept {
  readonly key: string
  readonly body: string
}

/** What a channel knows of a template name and language (templateStanding). */
export interface TemplateStanding {
  /** The active row, undefined when the channel has none. */
  readonly template: (StoredTemplate & { readonly meta_status: string | null }) | undefined
  /** The channel has a row of this name and language, active or not. */
  readonly known: boolean
  /** When the channel's templates were last synced (POST /templates/sync); null when never. */
  readonly synced_at: Date | null
}

/** The template a send names, as stored on its channel, with what the channel knows of it; one round trip. */
export const templateStanding = (
  sql: SqlClient.SqlClient,
  channel: Pick<UsableChannel, "id" | "account_id">,
  name: string,
  language: string
) =>
  sql<StoredTemplate & { meta_status: string | null; is_active: boolean | null; synced_at: Date | null }>`
    select c.templates_synced_at as synced_at, t.name, t.body_text, t.components, t.parameter_format, t.meta_status, t.is_active
    from platform_channels c
    left join lateral (
      select name, body_text, components, parameter_format, meta_status, is_active from templates
      where platform_channel_id = c.id and developer_account_id = ${channel.account_id}
        and name = ${name} and language_code = ${language}
      order by is_active desc limit 1
    ) t on true
    where c.id = ${channel.id}`.pipe(
    Effect.orDie,
    Effect.map((rows): TemplateStanding => {
      const row = rows[0]
      if (row === undefined || row.is_active === null) return { template: undefined, known: false, synced_at: row?.synced_at ?? null }
      const { is_active, synced_at, ...template } = row
      return { template: is_active ? template : undefined, known: true, synced_at }
    })
  )

/** Meta's id of the latest inbound message from `peer` on the channel. */
export const lastInboundMessage = (sql: SqlClient.SqlClient, channel: UsableChannel, peer: string) =>
  sql<{ meta_message_id: string }>`
    select m.meta_message_id from conversations c
    join messages m on m.conversation_id = c.id
    where c.platform_channel_id = ${channel.id} and c.peer_id = ${peer}
      and m.direction = 'inbound' and m.meta_message_id is not null
    order by m.id desc limit 1`.pipe(Effect.orDie, Effect.map((rows) => rows[0]?.meta_message_id))

/**
 * The whole record of a successful send, in one statement (DESIGN §8). Status
 * callbacks that arrived before this record (parked by the inbound statement)
 * are applied here in arrival order, never backwards, with the events they
 * would have written had they come after it; expired ones are only deleted.
 * `sentAt` is when the upstream accepted it, given when the record is written
 * later than that (held through a database outage): the message's created_at
 * and its event's occurred_at say when it was sent, not when it was written.
 * `traceParent` (the request's span) is stored with its events, as an inbound POST's
 * is, so that their delivery attempts link to it. Answers the events it wrote by type
 * (the sent one and those of parked statuses), for the metrics.
 * A SqlError is the caller's to handle (the upstream has already sent it).
 */
export const recordSent = (
  sql: SqlClient.SqlClient,
  channel: UsableChannel,
  body: SendMessage,
  peer: string,
  upstreamId: string | null,
  kept: Kept | null,
  owner: SendOwner,
  sentAt: Date | undefined,
  traceParent: string | null
) => {
  const eventId = newEventId()
  const now = (sentAt ?? new Date()).toISOString()
  const createdAt = sentAt === undefined ? null : now
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
  return sql<{ id: number; conversation_id: number; event_types: Record<string, number> | null }>`
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
        type, text, payload, media_id, status, status_updated_at, meta_message_id, error, created_at)
      select ${channel.account_id}, ${channel.id}, conv.id, contact.id, 'outbound', ${owner.source},
        ${body.type}, ${text},
        ${json(payloadOf(body))}::jsonb, ${mediaId}, coalesce((select status from best), 'sent'), now(), ${upstreamId},
        (select envelope from best), coalesce(${createdAt}::timestamptz, now())
      from conv, contact
      returning id, conversation_id
    ),
    evt as (
      insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope, occurred_at,
        trace_parent)
      select e.event_id, p.account_id, p.channel_id, e.event_type, p.peer, ${sql.unsafe(SENT_EVENT_ENVELOPE)},
        ${now}::timestamptz, ${traceParent}::text
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
      returning event_type
    ),
    kept as (
      update idempotency_keys set status = 'completed', response_status = 200, response_body = ${kept?.body ?? null}
      where ${kept !== null} and developer_account_id = ${channel.account_id} and key = ${kept?.key ?? ""}
      returning 1
    ),
    recipient as (${owner.source === "broadcast" ? owner.outcome.sent(upstreamId) : sql`select 1`})
    select msg.id, msg.conversation_id,
      (select json_object_agg(event_type, n) from (select event_type, count(*)::int as n from evt group by event_type) t) as event_types
    from msg`
}

/*
 * An upstream id names one message of its channel (messages_upstream_key), so a record of
 * it that meets the index finds its own row: written by an earlier attempt of the same
 * record whose answer was lost with the connection (the statement committed, the reply
 * did not arrive), and with that row the contact, conversation, event, Idempotency-Key
 * and recipient writes of that one statement.
 */
export const alreadyRecorded = (error: SqlError.SqlError): boolean => {
  const cause = error.cause as { readonly code?: unknown; readonly constraint?: unknown } | undefined
  return cause?.code === "23505" && cause.constraint === "messages_upstream_key"
}

/**
 * A send the upstream refused: the record stays, status failed with the envelope, no counters, no event.
 * A SqlError is the caller's to handle, as for `recordSent`.
 */
export const recordFailed = (
  sql: SqlClient.SqlClient,
  channel: UsableChannel,
  body: SendMessage,
  peer: string,
  error: SendErrorBody,
  kept: Kept | null,
  owner: SendOwner
) =>
  sql`
    with conv as (
      select id, platform_contact_id from conversations where platform_channel_id = ${channel.id} and peer_id = ${peer}
    ),
    msg as (
      insert into messages (developer_account_id, platform_channel_id, conversation_id, contact_id, direction, source,
        type, text, payload, media_id, status, status_updated_at, error)
      values (${channel.account_id}, ${channel.id}, (select id from conv), (select platform_contact_id from conv),
        'outbound', ${owner.source}, ${body.type}, ${textOf(body)}, ${json(payloadOf(body))}::jsonb, ${mediaIdOf(body)}, 'failed',
        now(), ${json(error)}::jsonb)
      returning id
    ),
    kept as (
      update idempotency_keys set status = 'completed', response_status = 502, response_body = ${kept?.body ?? null}
      where ${kept !== null} and developer_account_id = ${channel.account_id} and key = ${kept?.key ?? ""}
      returning 1
    ),
    recipient as (${owner.source === "broadcast" ? owner.outcome.failed(error) : sql`select 1`})
    select (select count(*) from msg) as messages, (select count(*) from kept) as kept`
