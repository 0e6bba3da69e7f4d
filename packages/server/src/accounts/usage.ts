import { SqlClient } from "@effect/sql"
import { type Plan, PLAN_LIMITS, PlanNames } from "@platform/shared"
import { Data, Effect } from "effect"
import { currentPeriod } from "../db/usage-period.js"

export type Metric = "inbound_messages" | "template_messages" | "broadcasts"

const limitOf = (plan: Plan, metric: Metric): number => {
  const l = PLAN_LIMITS[plan]
  switch (metric) {
    case "inbound_messages":
      return l.inbound_messages_per_month
    case "template_messages":
      return l.template_messages_per_month
    case "broadcasts":
      return l.broadcasts_per_month
  }
}

/** The monthly hard limit of a metric was reached; nothing was consumed. */
export class QuotaExceeded extends Data.TaggedError("QuotaExceeded")<{
  readonly metric: Metric
  readonly limit: number
  readonly used: number
  readonly plan: Plan
}> {}

export interface UsageSnapshot {
  readonly period: string
  readonly inbound_messages: number
  readonly template_messages: number
  readonly broadcasts: number
}

/**
 * Plans and monthly usage (DESIGN §5). `consume` is the check-and-count other
 * features call before any upstream call: one statement that reads the plan,
 * upserts the counter and refuses beyond the limit, so concurrent callers can
 * never overshoot (the conflicting row is locked and the WHERE re-evaluated).
 */
export class Usage extends Effect.Service<Usage>()("@platform/server/Usage", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const planValues = (metric: Metric) =>
      sql.literal(
        `(values ${PlanNames.map((p) => `('${p}', ${limitOf(p, metric)})`).join(", ")})`
      )

    const consume = Effect.fn("Usage.consume")(function*(accountId: number, metric: Metric, n = 1) {
      const period = currentPeriod()
      const rows = yield* sql<{ used: number }>`
        with lim as (
          select l.max from developer_accounts a join ${planValues(metric)} as l(plan, max) on l.plan = a.plan
          where a.id = ${accountId}
        )
        insert into usage_counters as u (developer_account_id, period, metric, used)
        select ${accountId}, ${period}::date, ${metric}, ${n} from lim where ${n} <= lim.max
        on conflict (developer_account_id, period, metric)
        do update set used = u.used + excluded.used
        where u.used + excluded.used <= (select max from lim)
        returning used`.pipe(Effect.orDie)
      if (rows.length > 0) return { used: rows[0]!.used, period }
      const [state] = yield* sql<{ plan: Plan; used: number | null }>`
        select a.plan, u.used from developer_accounts a
        left join usage_counters u on u.developer_account_id = a.id and u.period = ${period}::date and u.metric = ${metric}
        where a.id = ${accountId}`.pipe(Effect.orDie)
      const plan = state?.plan ?? "free"
      return yield* Effect.fail(new QuotaExceeded({ metric, plan, limit: limitOf(plan, metric), used: state?.used ?? 0 }))
    })

    /** Gives back what an aborted operation consumed (never below zero). */
    const refund = Effect.fn("Usage.refund")(function*(accountId: number, metric: Metric, n = 1) {
      yield* sql`
        update usage_counters set used = greatest(0, used - ${n})
        where developer_account_id = ${accountId} and period = ${currentPeriod()}::date and metric = ${metric}`.pipe(
        Effect.orDie
      )
    })

    const snapshot = Effect.fn("Usage.snapshot")(function*(accountId: number) {
      const period = currentPeriod()
      const rows = yield* sql<{ metric: Metric; used: number }>`
        select metric, used from usage_counters
        where developer_account_id = ${accountId} and period = ${period}::date`.pipe(Effect.orDie)
      const get = (m: Metric) => rows.find((r) => r.metric === m)?.used ?? 0
      return {
        period,
        inbound_messages: get("inbound_messages"),
        template_messages: get("template_messages"),
        broadcasts: get("broadcasts")
      } satisfies UsageSnapshot
    })

    const planOf = Effect.fn("Usage.planOf")(function*(accountId: number) {
      const [row] = yield* sql<{ plan: Plan }>`select plan from developer_accounts where id = ${accountId}`.pipe(
        Effect.orDie
      )
      return row?.plan ?? "free"
    })

    return { consume, refund, snapshot, planOf, limitOf } as const
  })
}) {}
