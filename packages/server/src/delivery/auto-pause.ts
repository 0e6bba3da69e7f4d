import { SqlClient } from "@effect/sql"
import { AUTO_PAUSE } from "@platform/shared"
import { Effect } from "effect"
import { countSwitchedOff } from "../telemetry/metrics.js"

const WINDOW_MS = AUTO_PAUSE.window_minutes * 60_000

/**
 * SPEC §3.4: a subscription whose attempts in the last 15 minutes number at
 * least 20, with at least 10 failures and a failure rate of at least 85 %, is
 * paused (`auto_paused_high_failure_rate`); the emitter then skips it and the
 * dispatcher holds its pending rows until `resume`. Evaluated only for the
 * subscriptions that just recorded a failure, so the success path pays nothing.
 * Attempts are counted per record statement (delivery_attempt_counts, written by
 * record.ts; migration 0008), not read back one row per attempt.
 */
export class AutoPause extends Effect.Service<AutoPause>()("@platform/server/AutoPause", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const evaluate = Effect.fn("AutoPause.evaluate")(function*(subscriptionIds: ReadonlyArray<number>, now: Date) {
      if (subscriptionIds.length === 0) return [] as ReadonlyArray<number>
      const since = new Date(now.getTime() - WINDOW_MS)
      const rows = yield* sql<{ id: number }>`
        update webhook_subscriptions s
        set is_paused = true, paused_reason = ${AUTO_PAUSE.paused_reason}, updated_at = ${now}
        from (
          select subscription_id, sum(attempts) as total, sum(failures) as failed
          from delivery_attempt_counts
          where subscription_id = any(${subscriptionIds}::bigint[]) and created_at > ${since}
          group by subscription_id
        ) a
        where s.id = a.subscription_id
          and not s.is_paused
          and a.total >= ${AUTO_PAUSE.min_deliveries}
          and a.failed >= ${AUTO_PAUSE.min_failures}
          and a.failed * 100 >= a.total * ${Math.round(AUTO_PAUSE.failure_rate * 100)}
        returning s.id`.pipe(Effect.orDie)
      countSwitchedOff(AUTO_PAUSE.paused_reason, rows.length)
      for (const r of rows) yield* Effect.logWarning("subscription auto-paused").pipe(Effect.annotateLogs("subscription_id", r.id))
      return rows.map((r) => r.id)
    })

    /** Deletes the counts that fell out of every window (the delivery workers run it every minute). */
    const prune = (now: Date) =>
      sql`delete from delivery_attempt_counts where created_at <= ${new Date(now.getTime() - WINDOW_MS)}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        Effect.withSpan("AutoPause.prune")
      )

    return { evaluate, prune } as const
  })
}) {}
