import { SqlClient } from "@effect/sql"
import { type Message, type MessageList, type MessageListQuery, NotFound } from "@platform/shared"
import { Effect } from "effect"
import { MESSAGE_VISIBLE } from "../outbox/data-visibility.js"
import { cursorRange, toPage } from "../http/pagination.js"

interface MessageRow {
  readonly id: number
  readonly platform_channel_id: number
  readonly conversation_id: number | null
  readonly contact_id: number | null
  readonly direction: Message["direction"]
  readonly source: Message["source"]
  readonly type: string
  readonly text: string | null
  readonly payload: unknown
  readonly media_id: string | null
  readonly status: string | null
  readonly meta_message_id: string | null
  readonly error: Record<string, unknown> | null
  readonly created_at: Date
  readonly status_updated_at: Date | null
}

const COLUMNS = `m.id, m.platform_channel_id, m.conversation_id, m.contact_id, m.direction, m.source, m.type, m.text,
  m.payload, m.media_id, m.status, m.meta_message_id, m.error, m.created_at, m.status_updated_at`

const messageToWire = (row: MessageRow): Message => ({
  id: row.id,
  platform_channel_id: row.platform_channel_id,
  conversation_id: row.conversation_id,
  contact_id: row.contact_id,
  direction: row.direction,
  source: row.source,
  type: row.type,
  text: row.text,
  payload: row.payload ?? null,
  media_id: row.media_id,
  status: row.status,
  meta_message_id: row.meta_message_id,
  error: row.error,
  created_at: row.created_at.toISOString(),
  status_updated_at: row.status_updated_at?.toISOString() ?? null
})

const DIRECTIONS = new Set(["inbound", "outbound"])

// The instants Postgres' timestamptz takes as ISO text: years 0001..9999 (it refuses
// year 0000, and an offset beyond ±15:59, both of which the Timestamp schema lets by).
const EARLIEST = Date.parse("0001-01-01T00:00:00Z")
const LATEST = Date.parse("9999-12-31T23:59:59.999Z")

/**
 * A since/until bound as the UTC text Postgres takes: the instant of the parameter,
 * clamped to the years it stores. Every stored message lies inside them, so a clamped
 * bound selects exactly what the parameter meant (since in year 0000: all; until then: none).
 */
const boundOf = (timestamp: string) =>
  new Date(Math.min(LATEST, Math.max(EARLIEST, Date.parse(timestamp)))).toISOString()

/** The stored message history of GET /messages (SPEC §4.4, DESIGN §5). */
export class MessageHistory extends Effect.Service<MessageHistory>()("@platform/server/MessageHistory", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const list = Effect.fn("MessageHistory.list")(function*(accountId: number, query: MessageListQuery) {
      const range = yield* cursorRange(query)
      // Unknown filter values give an empty page, never a 422 (DESIGN §5 "Filters").
      if (query.direction !== undefined && !DIRECTIONS.has(query.direction)) {
        return { data: [], has_more: false, next_cursor: null } satisfies MessageList
      }
      const filters = [
        sql`m.developer_account_id = ${accountId}`,
        sql`m.id < ${range.below}`,
        sql`m.id > ${range.above}`,
        sql.literal(MESSAGE_VISIBLE)
      ]
      if (query.channel_id !== undefined) filters.push(sql`m.platform_channel_id = ${query.channel_id}`)
      if (query.conversation_id !== undefined) filters.push(sql`m.conversation_id = ${query.conversation_id}`)
      if (query.contact_id !== undefined) filters.push(sql`m.contact_id = ${query.contact_id}`)
      if (query.peer_id !== undefined) {
        filters.push(sql`m.conversation_id in (select c.id from conversations c
          where c.developer_account_id = ${accountId} and c.peer_id = ${query.peer_id})`)
      }
      if (query.direction !== undefined) filters.push(sql`m.direction = ${query.direction}`)
      if (query.type !== undefined) filters.push(sql`m.type = ${query.type}`)
      if (query.status !== undefined) filters.push(sql`m.status = ${query.status}`)
      if (query.since !== undefined) filters.push(sql`m.created_at >= ${boundOf(query.since)}::timestamptz`)
      if (query.until !== undefined) filters.push(sql`m.created_at < ${boundOf(query.until)}::timestamptz`)
      const rows = yield* sql<MessageRow>`select ${sql.literal(COLUMNS)} from messages m where ${sql.and(filters)}
        order by ${sql.literal(range.direction === "before" ? "m.id asc" : "m.id desc")} limit ${query.limit + 1}`
      return toPage(rows, query.limit, range.direction, messageToWire)
    }, Effect.catchTag("SqlError", Effect.die))

    const get = Effect.fn("MessageHistory.get")(function*(accountId: number, id: number) {
      const [row] = yield* sql<MessageRow>`select ${sql.literal(COLUMNS)} from messages m
        where m.id = ${id} and m.developer_account_id = ${accountId} and ${sql.literal(MESSAGE_VISIBLE)}`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      return messageToWire(row)
    })

    return { list, get } as const
  })
}) {}
