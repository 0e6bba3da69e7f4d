import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { BUFFER_LOCK } from "../delivery/buffer.js"
import { FAN_OUT_LOCK } from "../delivery/fan-out.js"
import { type WipeProgress, wipeProgress } from "./contact-wipe-progress.js"

/** What a deleted contact's personal fields read in the envelopes that outlive it. */
export const REDACTED = "[redacted]"

/** The fields of message.* and conversation.* data that name the person or quote them (SPEC §6.2). */
const PERSONAL_FIELDS = new Set(["peer_id", "text", "media_id", "meta_message_id"])

// Waiting for fan-out's and the buffer's advisory locks before redacting the staged
// envelopes means no fan-out that read an event before its redaction, and no batch
// assembly that read a staged envelope before its redaction, is still uncommitted:
// its copy is in a row this wipe reads afterwards.

// Events and deliveries are stamped when written, in id order but for the rows of
// transactions that overlap: the range starts this much before the contact's first
// conversation so that such a row is not left out.
const RANGE_SLACK_MS = 10 * 60 * 1000

type Json = Record<string, unknown>

const redactEvent = (envelope: Json, conversations: ReadonlySet<number>): Json => {
  const data = envelope.data
  if (typeof data !== "object" || data === null) return envelope
  const conversation = (data as Json).conversation_id
  if (typeof conversation !== "number" || !conversations.has(conversation)) return envelope
  const redacted: Json = {}
  for (const [key, value] of Object.entries(data)) {
    redacted[key] = PERSONAL_FIELDS.has(key) && value !== null ? REDACTED : value
  }
  return { ...envelope, data: redacted }
}

/**
 * The stored text of an envelope, or of a batch `{events: [...]}`, with the events
 * about one of `conversations` redacted: their personal fields read REDACTED, their
 * ids, types, conversation and timestamps stay. Undefined when nothing changes.
 */
export const redactEnvelopeText = (text: string, conversations: ReadonlySet<number>): string | undefined => {
  const value = JSON.parse(text) as Json
  const redacted = Array.isArray(value.events)
    ? { ...value, events: (value.events as Array<Json>).map((e) => redactEvent(e, conversations)) }
    : redactEvent(value, conversations)
  const out = JSON.stringify(redacted)
  return out === JSON.stringify(value) ? undefined : out
}

type Progress = WipeProgress<"events" | "buffer" | "deliveries">

/**
 * The part of a contact's wipe that follows the deletion of its messages: the copies
 * of its data that are not its rows. Its events keep their envelopes (the stream
 * replays them, deliveries read them), buffered envelopes wait to be batched, and
 * batches and conversation.inactive deliveries carry an envelope of their own; each
 * is redacted where it is about one of the contact's conversations. The messages go
 * first so that no status callback writes a new event about them meanwhile.
 *
 * No index finds an event by conversation (events is on the inbound hot path and
 * gets none for this): each table is walked through its account index,
 * events_account_idx and webhook_deliveries_account_idx, over the ids written since
 * the contact's first conversation (found by a binary search on the primary key),
 * `size` rows per call, the position kept in contact_wipe_progress.
 */
export const redactContactStep = (
  sql: SqlClient.SqlClient,
  contact: { readonly id: number; readonly accountId: number },
  size: number
) =>
  Effect.gen(function*() {
    const rows = yield* sql<{ id: number; created_at: Date }>`select id, created_at from conversations
      where platform_contact_id = ${contact.id}`
    if (rows.length === 0) return true
    const conversations = new Set(rows.map((r) => Number(r.id)))
    const ids = [...conversations]
    const since = new Date(Math.min(...rows.map((r) => r.created_at.getTime())) - RANGE_SLACK_MS)

    /** The ids of `table` written since `since`: after the last one older (by `column`), up to the newest. */
    const range = (table: "events" | "webhook_deliveries", column: "occurred_at" | "created_at") =>
      Effect.gen(function*() {
        const [bounds] = yield* sql<{ lo: number | null; hi: number | null }>`select
          (select min(id) from ${sql.literal(table)}) as lo, (select max(id) from ${sql.literal(table)}) as hi`
        if (bounds?.hi == null || bounds.lo == null) return { after_id: 0, until_id: 0 }
        let lo = Number(bounds.lo)
        let hi = Number(bounds.hi) + 1
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2)
          const [row] = yield* sql<{ id: number; later: boolean }>`select id, ${sql.literal(column)} >= ${since} as later
            from ${sql.literal(table)} where id >= ${mid} order by id limit 1`
          if (row === undefined || row.later) hi = mid
          else lo = Number(row.id) + 1
        }
        return { after_id: lo - 1, until_id: Number(bounds.hi) }
      })

    const { read, save } = wipeProgress(sql, contact.id)
    const saved = yield* read
    // 'recipients' and 'messages' are the stages before this one's (contact-send-redaction.ts); this step runs after them.
    const progress: Progress = saved === undefined || saved.stage === "recipients" || saved.stage === "messages"
      ? { stage: "events", ...(yield* range("events", "occurred_at")) }
      : { ...saved, stage: saved.stage }

    if (progress.stage === "events") {
      const scanned = yield* sql<{ id: number; envelope: string | null }>`select id,
          case when (envelope->'data'->>'conversation_id')::bigint = any(${ids}::bigint[]) then envelope::text end as envelope
        from events
        where developer_account_id = ${contact.accountId} and id > ${progress.after_id} and id <= ${progress.until_id}
        order by id limit ${size}`
      const changed = redactRows(scanned, conversations)
      if (changed.ids.length > 0) {
        yield* sql`update events e set envelope = u.envelope::json,
            conversation_peer = case when e.conversation_peer is not null then ${REDACTED} end
          from unnest(${changed.ids}::bigint[], ${changed.texts}::text[]) as u(id, envelope)
          where e.id = u.id`
      }
      yield* save(scanned.length < size
        ? { stage: "buffer", after_id: 0, until_id: 0 }
        : { ...progress, after_id: Number(scanned[scanned.length - 1]!.id) })
      return false
    }

    if (progress.stage === "buffer") {
      yield* sql`select pg_advisory_xact_lock(${FAN_OUT_LOCK})`
      yield* sql`select pg_advisory_xact_lock(${BUFFER_LOCK})`
      // Staged envelopes live for a buffer window (60 s at most): the table is small.
      const staged = yield* sql<{ id: number; envelope: string }>`select id, envelope::text as envelope
        from webhook_buffer_items where developer_account_id = ${contact.accountId}`
      const changed = redactRows(staged, conversations)
      if (changed.ids.length > 0) {
        yield* sql`update webhook_buffer_items b set envelope = u.envelope::json
          from unnest(${changed.ids}::bigint[], ${changed.texts}::text[]) as u(id, envelope)
          where b.id = u.id`
      }
      yield* save({ stage: "deliveries", ...(yield* range("webhook_deliveries", "created_at")) })
      return false
    }

    // A delivery made by fan-out reads its event's envelope (redacted above) and
    // carries only the peer; batches and conversation.inactive carry an envelope.
    const scanned = yield* sql<{ id: number; envelope: string | null; peer: boolean }>`select d.id,
        case when (d.envelope->'data'->>'conversation_id')::bigint = any(${ids}::bigint[])
               or exists (select 1 from json_array_elements(d.envelope->'events') x
                          where (x->'data'->>'conversation_id')::bigint = any(${ids}::bigint[]))
             then d.envelope::text end as envelope,
        coalesce(d.conversation_peer is not null and d.conversation_peer <> ${REDACTED} and d.envelope is null
          and (select (e.envelope->'data'->>'conversation_id')::bigint from events e where e.event_id = d.event_id)
              = any(${ids}::bigint[]), false) as peer
      from webhook_deliveries d
      where d.developer_account_id = ${contact.accountId} and d.id > ${progress.after_id} and d.id <= ${progress.until_id}
      order by d.id limit ${size}`
    const changed = redactRows(scanned, conversations)
    const peers = scanned.filter((r) => r.peer).map((r) => Number(r.id))
    if (changed.ids.length > 0 || peers.length > 0) {
      yield* sql`update webhook_deliveries d
        set envelope = coalesce(u.envelope::json, d.envelope),
            conversation_peer = case when d.id = any(${peers}::bigint[]) then ${REDACTED} else d.conversation_peer end
        from (select * from unnest(${changed.ids}::bigint[], ${changed.texts}::text[]) as x(id, envelope)
              union all
              select p, null from unnest(${peers}::bigint[]) as p) as u(id, envelope)
        where d.id = u.id`
    }
    if (scanned.length >= size) {
      yield* save({ ...progress, after_id: Number(scanned[scanned.length - 1]!.id) })
      return false
    }
    return true
  })

/** The rows among `rows` whose envelope changes when redacted, with their new text. */
const redactRows = (rows: ReadonlyArray<{ id: number; envelope: string | null }>, conversations: ReadonlySet<number>) => {
  const ids: Array<number> = []
  const texts: Array<string> = []
  for (const row of rows) {
    if (row.envelope === null) continue
    const text = redactEnvelopeText(row.envelope, conversations)
    if (text === undefined) continue
    ids.push(Number(row.id))
    texts.push(text)
  }
  return { ids, texts }
}
