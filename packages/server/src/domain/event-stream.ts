import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"

/** How far back `Last-Event-ID` can resume. */
const RESUME_WINDOW_MS = 24 * 60 * 60 * 1000
const PAGE = 500

export interface StreamFilter {
  readonly accountId: number
  readonly eventTypes: ReadonlyArray<string> | undefined
  readonly channelId: number | undefined
}

export interface StreamedEvent {
  readonly id: number
  readonly event_id: string
  readonly event_type: string
  readonly envelope: unknown
}

/**
 * The account's event rows for the SSE stream: where to start (the newest row,
 * or the row after `Last-Event-ID` if it is of this account and at most 24 h
 * old), and each page after a position.
 */
export class EventStream extends Effect.Service<EventStream>()("@platform/server/EventStream", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const start = Effect.fn("EventStream.start")(function*(accountId: number, lastEventId: string | undefined) {
      if (lastEventId !== undefined) {
        const since = new Date((yield* Clock.currentTimeMillis) - RESUME_WINDOW_MS)
        const [row] = yield* sql<{ id: number }>`select id from events
          where event_id = ${lastEventId} and developer_account_id = ${accountId} and occurred_at > ${since}`
        if (row !== undefined) return row.id
      }
      const [last] = yield* sql<{ id: number | null }>`select max(id) as id from events
        where developer_account_id = ${accountId}`
      return last?.id ?? 0
    }, Effect.orDie)

    const after = Effect.fn("EventStream.after")(function*(filter: StreamFilter, position: number) {
      const conditions = [sql`developer_account_id = ${filter.accountId}`, sql`id > ${position}`]
      if (filter.eventTypes !== undefined) conditions.push(sql`event_type = any(${[...filter.eventTypes]}::text[])`)
      if (filter.channelId !== undefined) conditions.push(sql`platform_channel_id = ${filter.channelId}`)
      return yield* sql<StreamedEvent>`select id, event_id, event_type, envelope from events
        where ${sql.and(conditions)} order by id limit ${PAGE}`
    }, Effect.orDie)

    return { start, after } as const
  })
}) {}
