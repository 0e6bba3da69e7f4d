import { SqlClient } from "@effect/sql"
import { API_VERSION, type EventData, type EventType } from "@platform/shared"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { countEvents } from "../telemetry/metrics.js"
import { currentTraceParent } from "../telemetry/tracing.js"

/** 80 random bits per id (the other 48 are the time). */
const RANDOM_BYTES = 10
/** Random bytes drawn 256 ids at a time: the inbound path makes two ids per message. */
const POOL_BYTES = RANDOM_BYTES * 256
let pool = Buffer.alloc(0)
let offset = POOL_BYTES

/**
 * `evt_` and 32 lowercase hex characters (SPEC §6.2): the creation time in
 * milliseconds (12 hex, as a UUIDv7 starts), then 80 bits from the system CSPRNG.
 * Ids made close in time are close in `events_event_id_key`: an insert lands on
 * the index's newest pages instead of a random one (measured with 300,000 rows:
 * 20,000 inserts in batches of 500 took 85-117 ms instead of 165-202 ms), and a
 * later sort by id is a sort by time.
 */
export const newEventId = (): string => {
  if (offset === POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  offset += RANDOM_BYTES
  return `evt_${Date.now().toString(16).padStart(12, "0")}${pool.toString("hex", offset - RANDOM_BYTES, offset)}`
}

/** When an id of `newEventId` was made (ms since the epoch): about its event's commit; undefined for other ids. */
export const eventTimeOf = (eventId: string): number | undefined => {
  const ms = /^evt_[0-9a-f]{12}/.test(eventId) ? parseInt(eventId.slice(4, 16), 16) : Number.NaN
  return Number.isFinite(ms) ? ms : undefined
}

/**
 * SQL: a compact JSON object (`to_json` of a row) of `columns`, a select list of
 * `expression as key`, its keys in that order. Values are JSON as `to_json` makes
 * them; a `json` value goes in as it is.
 */
export const jsonObjectSql = (columns: string): string => `(select to_json(x) from (select ${columns}) x)`

/**
 * SQL: a timestamptz expression as ISO 8601 UTC text with milliseconds, the form of
 * JavaScript's toISOString (`2025-01-02T03:04:05.678Z`). Casting to text instead
 * gives Postgres's own form (`2025-01-02 03:04:05.678+00`), which SPEC §6.2 rules out.
 */
export const isoTimestampSql = (timestamptz: string): string =>
  `to_char((${timestamptz})::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/**
 * SQL: an event's envelope as receivers get it (migration 0011: the stored text is
 * the body), compact JSON with its keys in SPEC §6.2 order. Each argument is an SQL
 * expression; `occurredAt` a timestamptz one, `data` a `json` one (jsonObjectSql).
 */
export const envelopeSql = (e: {
  readonly id: string
  readonly event: string
  readonly account: string
  readonly channel: string
  readonly occurredAt: string
  readonly data: string
}): string =>
  jsonObjectSql(`${e.id}::text as id, ${e.event}::text as event, ${e.account}::bigint as developer_account_id,
    ${e.channel}::bigint as platform_channel_id, ${isoTimestampSql(e.occurredAt)} as occurred_at,
    '${API_VERSION}'::text as api_version, ${e.data}::json as data`)

/**
 * SQL: the data of a message.* event, its fields in SPEC §6.2 order (status events
 * add `error`). Each argument is an SQL expression over the writer's rows.
 * SPEC §6.2 names three sources (contact, api, app_echo): a broadcast's message,
 * stored with source `broadcast`, is a send through the API, so its events say `api`.
 */
const eventSourceSql = (source: string): string =>
  `(case when ${source} = 'broadcast' then 'api' else ${source} end)::text`

export const messageDataSql = (m: {
  readonly id: string
  readonly conversationId: string
  readonly peer: string
  readonly direction: string
  readonly source: string
  readonly type: string
  readonly text: string
  readonly mediaId: string
  readonly status: string
  readonly metaMessageId: string
  /** Status events only. */
  readonly error?: string | undefined
}): string =>
  jsonObjectSql(`${m.id}::bigint as message_id, ${m.conversationId}::bigint as conversation_id, ${m.peer}::text as peer_id,
    ${m.direction}::text as direction, ${eventSourceSql(m.source)} as source, ${m.type}::text as type, ${m.text}::text as text,
    ${m.mediaId} is not null as has_media, ${m.mediaId}::text as media_id, ${m.status}::text as status,
    ${m.metaMessageId}::text as meta_message_id${m.error === undefined ? "" : `, ${m.error}::json as error`}`)

export interface EventInput<E extends EventType> {
  readonly event: E
  readonly developer_account_id: number
  readonly platform_channel_id: number | null
  readonly data: EventData<E>
  /** Orders message.* deliveries per (subscription, peer); null for channel.* and conversation.*. */
  readonly conversation_peer?: string | null
  readonly occurred_at?: Date
}

/**
 * The outbox. `write` must run inside the transaction of the state change that
 * caused the event (`sql.withTransaction`): @effect/sql routes every statement of
 * the enclosing transaction to its connection, so the event row commits or rolls
 * back with the change. Fan-out to subscriptions happens after commit, elsewhere.
 */
export class Events extends Effect.Service<Events>()("@platform/server/Events", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const write = Effect.fn("Events.write")(function*<E extends EventType>(input: EventInput<E>) {
      const occurredAt = input.occurred_at ?? new Date()
      const envelope = {
        id: newEventId(),
        event: input.event,
        developer_account_id: input.developer_account_id,
        platform_channel_id: input.platform_channel_id,
        occurred_at: occurredAt.toISOString(),
        api_version: API_VERSION,
        data: input.data
      }
      const [row] = yield* sql<{ id: number }>`
        insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope, occurred_at,
                            trace_parent)
        values (${envelope.id}, ${input.developer_account_id}, ${input.platform_channel_id}, ${input.event},
                ${input.conversation_peer ?? null}, ${JSON.stringify(envelope)}::json, ${occurredAt}, ${yield* currentTraceParent})
        returning id`.pipe(Effect.orDie)
      countEvents(input.event)
      return { id: row!.id, envelope }
    })

    return { write } as const
  })
}) {}
