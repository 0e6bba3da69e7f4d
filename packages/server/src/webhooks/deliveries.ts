import { SqlClient } from "@effect/sql"
import {
  type DeliveryList,
  type DeliveryListQuery,
  type EventDelivery,
  NotFound,
  type RawForwardDelivery,
  RETRY_DELAYS_MINUTES,
  StatusLocked,
  ValidationFailed
} from "@platform/shared"
import { Clock, Effect } from "effect"
import { canonicalEnvelope, deliveryEnvelope } from "../outbox/envelope.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { cursorRange, toPage } from "../http/pagination.js"

export interface DeliveryRow {
  readonly id: number
  readonly subscription_id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number | null
  readonly event_id: string
  readonly event_type: string
  readonly conversation_peer: string | null
  readonly status: EventDelivery["status"]
  readonly attempts: number
  readonly next_retry_at: Date | null
  readonly response_status: number | null
  readonly response_body_snippet: string | null
  readonly latency_ms: number | null
  readonly last_error: string | null
  readonly created_at: Date
  readonly delivered_at: Date | null
  readonly updated_at: Date
  readonly envelope?: unknown
}

interface RawRow {
  readonly id: number
  readonly platform_channel_id: number
  readonly status: RawForwardDelivery["status"]
  readonly attempts: number
  readonly next_retry_at: Date | null
  readonly response_status: number | null
  readonly response_body_snippet: string | null
  readonly last_error: string | null
  readonly created_at: Date
  readonly delivered_at: Date | null
}

const LIST_COLUMNS = `id, subscription_id, developer_account_id, platform_channel_id, event_id, event_type,
  conversation_peer, status, attempts, next_retry_at, response_status, response_body_snippet, latency_ms, last_error,
  created_at, delivered_at, updated_at`

const payloadOf = (envelope: unknown) => {
  const value = envelope as Record<string, unknown>
  return Array.isArray(value.events)
    ? { events: (value.events as Array<Record<string, unknown>>).map(canonicalEnvelope) }
    : canonicalEnvelope(value)
}

/**
 * When the row's last attempt was recorded, read from the columns recording it wrote (delivery/record.ts: one
 * time, `now`, for all of them), so that the engine writes nothing more for it. Delivered: delivered_at. Failed:
 * updated_at, as no statement writes a finished row again. Waiting for its next attempt, or in it (pending or
 * delivering): next_retry_at less the schedule's delay, since claims rewrite updated_at (the lease) but never
 * next_retry_at (a release only lowers it to now, and the row it releases was due). Null before the first attempt.
 */
export const lastAttemptAt = (row: Pick<DeliveryRow, "status" | "attempts" | "next_retry_at" | "delivered_at" | "updated_at">): Date | null => {
  if (row.attempts === 0) return null
  if (row.status === "delivered") return row.delivered_at ?? row.updated_at
  if (row.status === "failed") return row.updated_at
  // The delay before attempt n + 1 is RETRY_DELAYS_MINUTES[n] (record.ts: the 1-based SQL array's n + 1).
  const delay = RETRY_DELAYS_MINUTES[row.attempts]
  return row.next_retry_at === null || delay === undefined ? null : new Date(row.next_retry_at.getTime() - delay * 60_000)
}

/** A delivery row on the wire (SPEC §2.6); `envelope` only when asked for. */
export const deliveryToWire = (row: DeliveryRow, withEnvelope: boolean): EventDelivery => ({
  id: row.id,
  subscription_id: row.subscription_id,
  developer_account_id: row.developer_account_id,
  platform_channel_id: row.platform_channel_id,
  event_id: row.event_id,
  event_type: row.event_type,
  conversation_peer: row.conversation_peer,
  status: row.status,
  attempts: row.attempts,
  next_retry_at: row.next_retry_at?.toISOString() ?? null,
  response_status: row.response_status,
  response_body_snippet: row.response_body_snippet,
  latency_ms: row.latency_ms,
  last_error: row.last_error,
  created_at: row.created_at.toISOString(),
  delivered_at: row.delivered_at?.toISOString() ?? null,
  last_attempt_at: lastAttemptAt(row)?.toISOString() ?? null,
  ...(withEnvelope && row.envelope !== undefined ? { envelope: payloadOf(row.envelope) as never } : {})
})

const rawToWire = (row: RawRow): RawForwardDelivery => ({
  id: row.id,
  platform_channel_id: row.platform_channel_id,
  status: row.status,
  attempts: row.attempts,
  // The column (never null) holds a delivered row's last lease: no retry follows.
  next_retry_at: row.status === "delivered" ? null : row.next_retry_at?.toISOString() ?? null,
  response_status: row.response_status,
  response_body_snippet: row.response_body_snippet,
  last_error: row.last_error,
  created_at: row.created_at.toISOString(),
  delivered_at: row.delivered_at?.toISOString() ?? null
})

const STATUSES = new Set(["pending", "delivering", "delivered", "failed"])

/** Filters of normalized deliveries only: with mode=meta they are a mistake to name, not an empty page. */
const NATIVE_ONLY = ["subscription_id", "event_type"] as const

/** The deliveries API (SPEC §4.6) and redelivery (DESIGN §5). */
export class Deliveries extends Effect.Service<Deliveries>()("@platform/server/Deliveries", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* DeliveryWakeup

    const list = Effect.fn("Deliveries.list")(function*(accountId: number, query: DeliveryListQuery) {
      const range = yield* cursorRange(query)
      // errors_only is status=failed, AND-combined with a status given beside it (SPEC §4.6).
      const status = query.errors_only === true ? "failed" : query.status
      const empty = { mode: query.mode, data: [], has_more: false, next_cursor: null } as DeliveryList
      if (query.status !== undefined && query.status !== status) return empty
      // Unknown filter values give an empty page, never a 422 (DESIGN §5 "Filters").
      if (status !== undefined && !STATUSES.has(status)) return empty
      const direction = range.direction
      const order = sql.literal(direction === "before" ? "id asc" : "id desc")
      const filters = [sql`developer_account_id = ${accountId}`, sql`id < ${range.below}`, sql`id > ${range.above}`]
      if (query.channel_id !== undefined) filters.push(sql`platform_channel_id = ${query.channel_id}`)
      if (status !== undefined) filters.push(sql`status = ${status}`)
      if (query.mode === "meta") {
        const misplaced = NATIVE_ONLY.filter((name) => query[name] !== undefined)
        if (misplaced.length > 0) {
          return yield* new ValidationFailed({
            detail: misplaced.map((name) => ({
              loc: ["query", name],
              msg: `applies to mode=native only (SPEC §4.6): raw-forward deliveries have no ${name}; drop it or use mode=native`,
              type: "filter_not_applicable",
              input: query[name],
              ctx: { mode: "meta" }
            }))
          })
        }
        const rows = yield* sql<RawRow>`select id, platform_channel_id, status, attempts, next_retry_at, response_status,
            response_body_snippet, last_error, created_at, delivered_at
          from platform_deliveries where ${sql.and(filters)} order by ${order} limit ${query.limit + 1}`
        return { mode: "meta", ...toPage(rows, query.limit, direction, rawToWire) } satisfies DeliveryList
      }
      if (query.subscription_id !== undefined) filters.push(sql`subscription_id = ${query.subscription_id}`)
      if (query.event_type !== undefined) filters.push(sql`event_type = ${query.event_type}`)
      const rows = yield* sql<DeliveryRow>`select ${sql.literal(LIST_COLUMNS)} from webhook_deliveries
        where ${sql.and(filters)} order by ${order} limit ${query.limit + 1}`
      return {
        mode: "native",
        ...toPage(rows, query.limit, direction, (r) => deliveryToWire(r, false))
      } satisfies DeliveryList
    }, Effect.catchTag("SqlError", Effect.die))

    const find = (accountId: number, id: number) =>
      sql<DeliveryRow>`select ${sql.literal(LIST_COLUMNS)}, ${sql.literal(deliveryEnvelope("d"))} as envelope
        from webhook_deliveries d where d.id = ${id} and d.developer_account_id = ${accountId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(new NotFound()) : Effect.succeed(rows[0]))
      )

    const get = Effect.fn("Deliveries.get")(function*(accountId: number, id: number, fullEnvelope: boolean) {
      return deliveryToWire(yield* find(accountId, id), fullEnvelope)
    })

    /** A new row for the same event (same id and payload), linked to the original; only once it has finished. */
    const redeliver = Effect.fn("Deliveries.redeliver")(function*(accountId: number, id: number) {
      const original = yield* find(accountId, id)
      if (original.status !== "delivered" && original.status !== "failed") {
        return yield* new StatusLocked({
          status: original.status,
          message: `delivery ${id} is ${original.status}: only a delivered or failed delivery can be redelivered, ` +
            "and this one is still being delivered (retries included)"
        })
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const [row] = yield* sql<DeliveryRow>`
        insert into webhook_deliveries
          (subscription_id, developer_account_id, platform_channel_id, event_id, event_type, conversation_peer, envelope,
           is_batch, redelivery_of, next_retry_at, created_at, updated_at)
        select d.subscription_id, d.developer_account_id, d.platform_channel_id, d.event_id, d.event_type,
               d.conversation_peer, d.envelope, d.is_batch, d.id, ${now}, ${now}, ${now}
        from webhook_deliveries d
        -- No foreign key (migration 0006): a subscription deleted meanwhile gets no row.
        join webhook_subscriptions s on s.id = d.subscription_id
        where d.id = ${id} and d.developer_account_id = ${accountId}
        for key share of s
        returning *`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      yield* wakeup.deliveriesWritten
      return deliveryToWire(row, false)
    })

    return { list, get, redeliver } as const
  }),
  dependencies: [DeliveryWakeup.Default]
}) {}
