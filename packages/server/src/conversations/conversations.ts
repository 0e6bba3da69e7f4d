import { SqlClient } from "@effect/sql"
import {
  type Conversation,
  type ConversationList,
  type ConversationListQuery,
  type ConversationStatus,
  NotFound
} from "@platform/shared"
import { Clock, Effect } from "effect"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { CONVERSATION_VISIBLE } from "../outbox/data-visibility.js"
import { Events } from "../outbox/events.js"
import { cursorRange, toPage } from "../http/pagination.js"

interface ConversationRow {
  readonly id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number
  readonly platform_contact_id: number | null
  readonly peer_id: string
  readonly status: ConversationStatus
  readonly created_at: Date
  readonly ended_at: Date | null
  readonly last_active_at: Date
  readonly last_message_direction: string | null
  readonly last_message_preview: string | null
  readonly message_count: number
  readonly inbound_count: number
  readonly outbound_count: number
}

export const conversationToWire = (row: ConversationRow): Conversation => ({
  id: row.id,
  platform_channel_id: row.platform_channel_id,
  platform_contact_id: row.platform_contact_id,
  peer_id: row.peer_id,
  status: row.status,
  created_at: row.created_at.toISOString(),
  ended_at: row.ended_at?.toISOString() ?? null,
  last_active_at: row.last_active_at.toISOString(),
  last_message_direction: row.last_message_direction,
  last_message_preview: row.last_message_preview,
  message_count: row.message_count,
  inbound_count: row.inbound_count,
  outbound_count: row.outbound_count
})

const STATUSES = new Set(["active", "ended"])

/** Conversations of the data plane: list, get and the status change of SPEC §3.2. */
export class Conversations extends Effect.Service<Conversations>()("@platform/server/Conversations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const wakeup = yield* DeliveryWakeup

    /**
     * active → ended sets ended_at and writes conversation.ended in the same
     * transaction (the outbox); ended → active clears ended_at. The current
     * status again changes nothing and emits nothing.
     */
    const setStatus = Effect.fn("Conversations.setStatus")(
      function*(accountId: number, id: number, status: ConversationStatus) {
        const now = new Date(yield* Clock.currentTimeMillis)
        const result = yield* sql.withTransaction(Effect.gen(function*() {
          const [current] = yield* sql<ConversationRow>`select * from conversations c
            where c.id = ${id} and c.developer_account_id = ${accountId} and ${sql.literal(CONVERSATION_VISIBLE)}
            for update of c`
          if (current === undefined) return undefined
          if (current.status === status) return { row: current, emitted: false }
          const [row] = yield* sql<ConversationRow>`update conversations
            set status = ${status}, ended_at = ${status === "ended" ? now : null}
            where id = ${id} returning *`
          if (status === "ended") {
            yield* events.write({
              event: "conversation.ended",
              developer_account_id: accountId,
              platform_channel_id: row!.platform_channel_id,
              conversation_peer: null,
              occurred_at: now,
              data: {
                conversation_id: row!.id,
                peer_id: row!.peer_id,
                status: "ended",
                message_count: row!.message_count,
                last_active_at: row!.last_active_at.toISOString()
              }
            })
          }
          return { row: row!, emitted: status === "ended" }
        })).pipe(Effect.orDie)
        if (result === undefined) return yield* new NotFound()
        if (result.emitted) yield* wakeup.eventsWritten
        return conversationToWire(result.row)
      }
    )

    const list = Effect.fn("Conversations.list")(function*(accountId: number, query: ConversationListQuery) {
      const range = yield* cursorRange(query)
      // Unknown filter values give an empty page, never a 422 (DESIGN §5 "Filters").
      if (query.status !== undefined && !STATUSES.has(query.status)) {
        return { data: [], has_more: false, next_cursor: null } satisfies ConversationList
      }
      const filters = [
        sql`c.developer_account_id = ${accountId}`,
        sql`c.id < ${range.below}`,
        sql`c.id > ${range.above}`,
        sql.literal(CONVERSATION_VISIBLE)
      ]
      if (query.channel_id !== undefined) filters.push(sql`c.platform_channel_id = ${query.channel_id}`)
      if (query.status !== undefined) filters.push(sql`c.status = ${query.status}`)
      if (query.peer_id !== undefined) filters.push(sql`c.peer_id = ${query.peer_id}`)
      const rows = yield* sql<ConversationRow>`select c.* from conversations c where ${sql.and(filters)}
        order by ${sql.literal(range.direction === "before" ? "c.id asc" : "c.id desc")} limit ${query.limit + 1}`
      return toPage(rows, query.limit, range.direction, conversationToWire)
    }, Effect.catchTag("SqlError", Effect.die))

    const get = Effect.fn("Conversations.get")(function*(accountId: number, id: number) {
      const [row] = yield* sql<ConversationRow>`select c.* from conversations c
        where c.id = ${id} and c.developer_account_id = ${accountId} and ${sql.literal(CONVERSATION_VISIBLE)}`.pipe(
          Effect.orDie
        )
      if (row === undefined) return yield* new NotFound()
      return conversationToWire(row)
    })

    return { list, get, setStatus } as const
  }),
  dependencies: [DeliveryWakeup.Default, Events.Default]
}) {}
