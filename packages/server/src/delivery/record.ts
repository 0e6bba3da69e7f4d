import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MINUTES } from "@platform/shared"
import { Clock, Effect } from "effect"
import { eventTimeOf } from "../outbox/events.js"
import { countSwitchedOff, observeDeliveryAttempt } from "../telemetry/metrics.js"
import type { AutoPause } from "./auto-pause.js"
import { CLAIMED_COLUMNS, type ClaimedRow, WITH_SUBSCRIPTION } from "./claims.js"
import type { EngineSqlShape } from "./engine-sql.js"
import type { PostOutcome } from "./transport.js"

/** Postgres arrays are 1-based: delay before attempt n is `delays[n]`. */
const RETRY_DELAYS = [...RETRY_DELAYS_MINUTES]

const GONE = 410
/** paused_reason of a subscription switched off (is_active false) because its receiver answered 410 Gone. */
export const GONE_REASON = "receiver_gone_410"

/** One POSTed row waiting to be recorded, with the lease it was claimed under. */
export interface Settled {
  readonly row: ClaimedRow
  readonly outcome: PostOutcome
  readonly claimedAt: Date
}

/**
 * The metrics of recorded attempts: each attempt, what it led to, the event-to-2xx
 * latency, and the subscriptions a 410 Gone switched off (one per subscription and batch).
 */
const observeRecorded = (settled: ReadonlyArray<Settled>, nowMs: number) => {
  let gone: Set<number> | undefined
  for (const { outcome, row } of settled) {
    const status = outcome._tag === "Answered" ? outcome.status : null
    const created = eventTimeOf(row.event_id)
    observeDeliveryAttempt(
      "normalized",
      status,
      outcome.latencyMs,
      row.attempts + 1 >= MAX_DELIVERY_ATTEMPTS,
      created === undefined ? undefined : nowMs - created
    )
    if (status === GONE) (gone ??= new Set()).add(row.subscription_id)
  }
  if (gone !== undefined) countSwitchedOff(GONE_REASON, gone.size)
}

/** The statement that records outcomes (and hands conversations their next turn). */
export const makeRecord = ({ prepared, sql }: EngineSqlShape, autoPause: AutoPause, holder: number | null = null) => {
  const claimedColumns = sql.literal(CLAIMED_COLUMNS)
  const withSubscription = sql.literal(WITH_SUBSCRIPTION)

  /**
   * Records a batch of outcomes in ONE statement: each row's attempt, its next state
   * and retry time, a row per failed attempt, the attempts counted per subscription,
   * the subscriptions' counters. With `turns` > 0 it also claims (up to `turns`) the
   * next row of each conversation whose row finished here, so a conversation's turn
   * passes without another statement: the next head is the oldest open row of the
   * pair besides the ones this batch finished, taken when pending and due and its
   * subscription had no failure in the batch (those wait for auto-pause to have its
   * say, then their probe), held by `holder` (this process, holder.ts).
   */
  const record = (settled: ReadonlyArray<Settled>, turns: number = 0, at?: Date) =>
    Effect.gen(function*() {
      const now = at ?? new Date(yield* Clock.currentTimeMillis)
      const outcomes = settled.map(({ claimedAt, outcome: o, row }) => {
        const answered = o._tag === "Answered"
        const ok = answered && o.status >= 200 && o.status < 300
        return {
          id: row.id,
          lease: claimedAt,
          ok,
          response_status: answered ? o.status : null,
          snippet: answered ? o.snippet.replace(/\u0000/g, "") : null,
          latency: o.latencyMs,
          error: answered ? (ok ? null : `HTTP ${o.status}`) : o.reason,
          gone: answered && o.status === GONE
        }
      })
      const rows = yield* prepared("engine_record", sql<ClaimedRow & { readonly failing: ReadonlyArray<string> | null; readonly id: number | null }>`
        with o as (
          -- synchronous_commit off for THIS statement's transaction only (is_local):
          -- the commit returns before its WAL is flushed. A crash can lose at most the
          -- last few hundred ms of records; those rows stay 'delivering' and are sent
          -- again when their 30 s lease expires: a redelivery (receivers dedupe on
          -- webhook-id), never a lost event. The event and delivery rows themselves are
          -- written with full durability by fan-out before any POST. A next turn
          -- claimed here and lost with it is pending again: sent after its predecessor.
          -- One JSON document: pg would escape eight text[] parameters element by element.
          select o.* from json_to_recordset(${JSON.stringify(outcomes)}::json)
            as o(id bigint, lease timestamptz, ok boolean, response_status int, snippet text, latency int,
                 error text, gone boolean)
          cross join (select set_config('synchronous_commit', 'off', true)) as async_commit
        ),
        upd as (
          update webhook_deliveries d set
            attempts = d.attempts + 1,
            status = case when o.ok then 'delivered'
                          when d.attempts + 1 >= ${MAX_DELIVERY_ATTEMPTS} then 'failed'
                          else 'pending' end,
            next_retry_at = case when o.ok or d.attempts + 1 >= ${MAX_DELIVERY_ATTEMPTS} then null
                                 else ${now}::timestamptz
                                      + make_interval(mins => (${RETRY_DELAYS}::int[])[d.attempts + 2]) end,
            delivering_since = null,
            response_status = o.response_status,
            response_body_snippet = o.snippet,
            latency_ms = o.latency,
            last_error = o.error,
            delivered_at = case when o.ok then ${now}::timestamptz else d.delivered_at end,
            updated_at = ${now}
          from o
          -- By primary key only (= any of an array; "is true" keeps the lease index out,
          -- as in claims.ts): planned generically (engine-sql.ts), this walked every row
          -- in flight through the lease index and hashed them.
          where d.id = any(array(select id from o)) and d.id = o.id
            and (d.status = 'delivering') is true and d.delivering_since = o.lease
          returning d.id, d.subscription_id, d.developer_account_id, d.conversation_peer, d.attempts, d.status,
                    o.ok, o.response_status, o.latency, o.error, o.gone
        ),
        -- Failed attempts only: a delivered one is its delivery row (attempts, status, latency, time).
        att as (
          insert into delivery_attempts
            (delivery_id, developer_account_id, subscription_id, attempt, outcome, response_status, latency_ms,
             error, created_at)
          select id, developer_account_id, subscription_id, attempts, 'failed', response_status, latency, error, ${now}
          from upd where not ok
        ),
        agg as (
          select subscription_id,
                 count(*) filter (where not ok)::int as failures,
                 count(*) filter (where ok)::int as successes,
                 bool_or(gone) as gone
          from upd group by subscription_id
        ),
        -- What auto-pause counts: one row per subscription per record (auto-pause.ts).
        counted as (
          insert into delivery_attempt_counts (subscription_id, created_at, attempts, failures)
          select subscription_id, ${now}, successes + failures, failures from agg
        ),
        subs as (
          -- last_delivery_at is kept to the second so a busy subscription's row is
          -- not rewritten (and locked) by every batch.
          update webhook_subscriptions s set
            last_delivery_at = ${now},
            failure_count = case when a.successes > 0 then 0 else s.failure_count + a.failures end,
            is_active = case when a.gone then false else s.is_active end,
            paused_reason = case when a.gone then ${sql.literal(`'${GONE_REASON}'`)} else s.paused_reason end,
            updated_at = case when a.gone then ${now}::timestamptz else s.updated_at end
          from agg a
          where s.id = a.subscription_id
            and (a.failures > 0 or a.gone or s.failure_count > 0 or s.last_delivery_at is null
                 or s.last_delivery_at < ${new Date(now.getTime() - 1000)})
        ),
        finished as (
          select u.subscription_id, u.conversation_peer as peer, array_agg(u.id) as ids
          from upd u join agg a on a.subscription_id = u.subscription_id and a.failures = 0
          where u.conversation_peer is not null and u.status in ('delivered', 'failed')
          group by u.subscription_id, u.conversation_peer
        ),
        turn as (
          select h.id from finished f
          cross join lateral (
            -- This statement's snapshot still shows the finished rows open: skip them.
            select n.id, n.status from webhook_deliveries n
            where n.subscription_id = f.subscription_id and n.conversation_peer = f.peer
              and n.status in ('pending', 'delivering') and n.id <> all(f.ids)
            order by n.id
            limit 1
          ) h
          where h.status = 'pending'
          order by h.id
          limit ${turns}
        ),
        -- A plain UPDATE, no FOR UPDATE SKIP LOCKED step first (that lock costs a WAL
        -- record and a pass of its own per row): a row some claimer holds makes it wait
        -- for that claimer's commit, then it is checked again (EvalPlanQual) and, no
        -- longer pending, left alone. Claimers skip what they cannot lock and wait for
        -- nothing this statement holds, and no other record targets the same pairs'
        -- pending rows, so the wait cannot close a cycle. By primary key (= any of an
        -- array): a join the planner may turn into a walk over every pending row when
        -- its statistics lag behind a backlog.
        claimed as (
          update webhook_deliveries w
          set status = 'delivering', delivering_since = ${now}, holder = ${holder}, updated_at = ${now}
          from webhook_subscriptions s
          where w.id = any(array(select id from turn))
            -- "is true": by primary key only, as in claims.ts (claimHeads).
            and (w.status = 'pending') is true and (w.next_retry_at <= ${now}) is true
            and s.id = w.subscription_id and s.is_active and not s.is_paused
          returning ${claimedColumns}
        ),
        next as (${withSubscription})
        select f.failing, n.*
        from (select array_agg(subscription_id) filter (where failures > 0) as failing from agg) f
        left join next n on true`).pipe(Effect.orDie)
      observeRecorded(settled, now.getTime())
      const failing = (rows[0]?.failing ?? []).map(Number)
      if (failing.length > 0) yield* autoPause.evaluate(failing, now)
      return rows.filter((r) => r.id !== null) as ReadonlyArray<ClaimedRow>
    })

  return record
}
