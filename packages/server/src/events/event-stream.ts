import { SqlClient, type SqlError } from "@effect/sql"
import { EVENT_STREAMS_PER_ACCOUNT } from "@platform/shared"
import { Clock, Effect } from "effect"

/** How far back `Last-Event-ID` can resume. */
const RESUME_WINDOW_MS = 24 * 60 * 60 * 1000
const PAGE = 500

export interface StreamFilter {
  readonly accountId: number
  readonly eventTypes: ReadonlyArray<string> | undefined
  readonly channelId: number | undefined
}

/** Where a stream starts: a row id, whether that is where the client asked (false for a Last-Event-ID not found) and, if not, the newest event's id. */
export interface StreamStart {
  readonly position: number
  readonly resumed: boolean
  readonly newest: string | null
}

export interface StreamedEvent {
  readonly id: number
  readonly event_id: string
  readonly event_type: string
  readonly envelope: unknown
}

/**
 * The account's event rows for the SSE stream: a slot of the account's
 * EVENT_STREAMS_PER_ACCOUNT, where to start (the newest row,
 * or the row after `Last-Event-ID` if it is of this account and at most 24 h
 * old or still the newest), and each page above a `StreamCursor`'s settled id that it has not sent,
 * with what the cursor needs of the poll's snapshot.
 */
export class EventStream extends Effect.Service<EventStream>()("@platform/server/EventStream", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const start = Effect.fn("EventStream.start")(function*(accountId: number, lastEventId: string | undefined): Effect.fn.Return<StreamStart, SqlError.SqlError> {
      const [last] = yield* sql<{ id: number; event_id: string }>`select id, event_id from events
        where developer_account_id = ${accountId} order by id desc limit 1`
      if (lastEventId !== undefined) {
        const since = new Date((yield* Clock.currentTimeMillis) - RESUME_WINDOW_MS)
        const [row] = yield* sql<{ id: number; recent: boolean }>`select id, occurred_at > ${since} as recent from events
          where event_id = ${lastEventId} and developer_account_id = ${accountId}`
        // An older event that is still the newest resumes too: nothing after it to replay, nothing missed
        // (a quiet account's stream reconnecting after its notice would otherwise be told so on every reconnect).
        if (row !== undefined && (row.recent || row.id >= (last?.id ?? 0))) return { position: row.id, resumed: true, newest: null }
      }
      return { position: last?.id ?? 0, resumed: lastEventId === undefined, newest: last?.event_id ?? null }
    }, Effect.orDie)

    const poll = Effect.fn("EventStream.poll")(function*(filter: StreamFilter, settled: number, sent: ReadonlyArray<number>) {
      const conditions = [sql`developer_account_id = ${filter.accountId}`, sql`id > ${settled}`, sql`id <> all(${sent}::bigint[])`]
      if (filter.eventTypes !== undefined) conditions.push(sql`event_type = any(${[...filter.eventTypes]}::text[])`)
      if (filter.channelId !== undefined) conditions.push(sql`platform_channel_id = ${filter.channelId}`)
      // One statement, so the snapshot's horizon, max(id) and the page are of the same snapshot.
      const rows = yield* sql<{
        snap_xmin: number
        snap_xmax: number
        max_id: number
        id: number | null
        event_id: string
        event_type: string
        envelope: unknown
      }>`select h.snap_xmin, h.snap_xmax, h.max_id, e.id, e.event_id, e.event_type, e.envelope
        from (select pg_snapshot_xmin(s)::text::bigint as snap_xmin, pg_snapshot_xmax(s)::text::bigint as snap_xmax,
                coalesce((select max(id) from events), 0) as max_id
              from pg_current_snapshot() as s) h
        left join (select id, event_id, event_type, envelope from events
                   where ${sql.and(conditions)} order by id limit ${PAGE}) e on true
        order by e.id`
      const head = rows[0]!
      const events: Array<StreamedEvent> = head.id === null
        ? []
        : rows.map((r) => ({ id: r.id!, event_id: r.event_id, event_type: r.event_type, envelope: r.envelope }))
      return { xmin: head.snap_xmin, xmax: head.snap_xmax, maxId: head.max_id, events, full: events.length === PAGE }
    }, Effect.orDie)

    // Counted per process: a stream is one socket and one poll loop of this process, which is what the cap protects.
    const open = new Map<number, number>()
    /** One of the account's stream slots for the scope's lifetime (until the response ends); false, taking none, when all are in use. */
    const slot = (accountId: number) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const count = open.get(accountId) ?? 0
          if (count >= EVENT_STREAMS_PER_ACCOUNT) return false
          open.set(accountId, count + 1)
          return true
        }),
        (taken) =>
          Effect.sync(() => {
            if (!taken) return
            const count = open.get(accountId)! - 1
            if (count === 0) open.delete(accountId)
            else open.set(accountId, count)
          })
      )

    return { start, poll, slot } as const
  })
}) {}
