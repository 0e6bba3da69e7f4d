import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Rows deleted per statement: each statement is a short transaction holding at most this
 * many row locks and writing a bounded amount of WAL, so a large backlog (the first run
 * on a table that was never pruned) never becomes one long delete that bloats the WAL
 * or stalls replication.
 */
export const PRUNE_BATCH = 1000

export interface Pruned {
  readonly idempotency_keys: number
  readonly sessions: number
}

/**
 * Deletes rows past their expiry that nothing reads again: Idempotency-Key replies (kept
 * 24 h, DESIGN §5; a claim already treats an expired row as free) and dashboard sessions
 * (a token is refused past its expiry before any query, and the row past expires_at
 * never resolves). Each batch picks the oldest expired rows through the table's expiry
 * index and locks them FOR UPDATE SKIP LOCKED: prunes of several processes take
 * disjoint rows instead of waiting on each other, and a row a request is re-claiming at
 * that moment is left to the request (its next version is no longer expired).
 */
export class ExpiredRows extends Effect.Service<ExpiredRows>()("@platform/server/ExpiredRows", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // The row addresses (ctid) of rows this statement has locked cannot change before its
    // delete, so the delete fetches them directly (a TID scan) instead of looking each
    // one up again by key.
    const expiredBatch = (table: "idempotency_keys" | "sessions") =>
      sql<{ n: number }>`
        with gone as (
          delete from ${sql(table)} where ctid = any(array(
            select ctid from ${sql(table)} where expires_at < now()
            order by expires_at limit ${PRUNE_BATCH} for update skip locked))
          returning 1
        )
        select count(*)::int as n from gone`

    /** Runs one batch statement after another until one deletes less than a full batch. */
    const drain = (table: Parameters<typeof expiredBatch>[0]) =>
      Effect.gen(function*() {
        let total = 0
        for (;;) {
          const [row] = yield* expiredBatch(table)
          const n = row?.n ?? 0
          total += n
          if (n < PRUNE_BATCH) return total
        }
      })

    const pruneOnce = Effect.gen(function*() {
      const idempotency_keys = yield* drain("idempotency_keys")
      const sessions = yield* drain("sessions")
      return { idempotency_keys, sessions } satisfies Pruned as Pruned
    }).pipe(Effect.orDie, Effect.withSpan("ExpiredRows.pruneOnce"))

    return { pruneOnce } as const
  })
}) {}
