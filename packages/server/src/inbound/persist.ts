import { SqlClient, SqlError } from "@effect/sql"
import { Cause, Clock, Effect, Exit, Option, Queue } from "effect"
import { dedicatedSession, PgPool, poolQuery, scopedPool } from "../db/client.js"
import { isConnectionFault } from "../db/connection-fault.js"
import { INBOUND_BOUNDS } from "../db/statement-bounds.js"
import { DeliveryHolder } from "../delivery/holder.js"
import { currentPeriod } from "../db/usage-period.js"
import { trackPool } from "../telemetry/db-pools.js"
import { countEvents } from "../telemetry/metrics.js"
import { groupsOf, isBatchable, MAX_BATCH, mergePlans, type PersistResult, shares } from "./batch.js"
import type { InboundPlan } from "./plan.js"
import { demandOf, makeQuotaLedger } from "./quota-ledger.js"
import { byteaOf, json, paramsOf, type PreparedStatement, statementFor } from "./statement-binding.js"
import type { ResultRow } from "./statement.js"

export interface PersistOptions {
  /**
   * This process attempts the rows itself right after commit: they are written
   * already leased (`delivering`, lease 2 min), which spares the claim round trip;
   * if the process dies first, the lease expires and the sweep takes them.
   */
  readonly inline: boolean
  /** The POST's span (`traceparent`), stored with its events and raw-forward rows. */
  readonly traceParent?: string | undefined
}

const isRetryable = (error: SqlError.SqlError): boolean => {
  const code = (error.cause as { code?: unknown } | undefined)?.code
  // 23503: the conversation race (see buildStatement); 23505/40001/40P01: other concurrent writers.
  return code === "23503" || code === "23505" || code === "40001" || code === "40P01"
}

/** Connections for the POSTs that run alone, beside the batch writer's. */
const ALONE_CONNECTIONS = 4

/*
 * The statement is planned once per connection, then runs that generic plan for
 * good. Planned while a table was small (a new deployment; a table growing faster
 * than autovacuum analyzes it), the plan hashes the whole table (messages,
 * conversations) on every later run, a cost growing with the table. Every row set
 * of the statement is a few rows probing unique keys, so the right plan never
 * scans a table: with sequential scans off it is chosen whatever the statistics
 * say. Measured on 2 cores at the unlimited rate: Postgres CPU per message 169 ->
 * 126-145 us, and `bench:inbound` 0.36-0.55 x bare -> 0.57-0.81 x (5 runs).
 */
const INBOUND_PLANNER = { enable_seqscan: "off" }

/*
 * One writer: batched POSTs run one statement at a time, and the next batch
 * forms while it runs. A second concurrent statement halves both batches (the
 * fixed cost per statement then dominates) and contends with the first for the
 * same rows and index pages, on the same cores. Measured with `bench:inbound` at the
 * unlimited rate on 2 cores: 2 writers 2,590-2,630 msg/s, p99 28-31 ms, 8-10
 * messages per statement; 1 writer 4,180 msg/s, p99 15 ms, 14 per statement.
 * Tried again with the batches in flight kept apart (never two holding the same
 * conversation, message or status target; one starting beside another only with
 * >= 4 POSTs), up to 3 writers, on a loaded 2-core machine (load 11-18), runs
 * alternating with 1 writer: Postgres CPU per message rose from 163-235 us to
 * 263-345 us (6-7 POSTs per statement instead of 12-14), the server's peak RSS
 * went to 506 and 531 MB in two of seven runs (360-384 in the others; 1 writer
 * 364-374), and the rate was no better beside the
 * bare handler (offered 2000, 3000 and max: 0.30-0.88 x with 3 writers,
 * 0.23-0.61 x with 1, same sittings). The machine's CPU bounds it: one writer stays.
 */

/** A POST waiting for its batch. */
interface Queued {
  readonly plan: InboundPlan
  readonly inline: boolean
  readonly traceParent: string | undefined
  readonly demand: ReadonlyMap<number, number>
  /** Called once: after the commit, or with the failure. */
  readonly done: (exit: Exit.Exit<PersistResult>) => void
}

/** Writes everything one Meta POST carries, as one statement (see `buildStatement`), batched with concurrent POSTs. */
export class InboundStore extends Effect.Service<InboundStore>()("@platform/server/InboundStore", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* Effect.serviceOption(PgPool)
    const ledger = yield* makeQuotaLedger
    const holder = (yield* DeliveryHolder).id

    // On Postgres the inbound statements run on a pool of their own whose
    // connections never plan a sequential scan (see INBOUND_PLANNER); the batch
    // writer keeps one of its connections (its statements stay planned) and a POST
    // that must run alone takes any other. Embedded PGlite has one backend session
    // for every client: nothing to keep.
    const own = Option.isSome(pool)
      ? Option.getOrUndefined(yield* scopedPool(pool.value, { max: 1 + ALONE_CONNECTIONS, settings: INBOUND_PLANNER, bounds: INBOUND_BOUNDS }))
      : undefined
    if (own !== undefined) yield* trackPool("inbound", own.pool)
    const session = own === undefined ? undefined : dedicatedSession(own)
    if (session !== undefined) yield* Effect.addFinalizer(() => session.close)
    const db = own ?? Option.getOrUndefined(pool)
    const execute = (text: string, name: string, params: ReadonlyArray<unknown>, batched: boolean) =>
      batched && session !== undefined
        ? session.query<ResultRow>(name, text, params)
        : db !== undefined
        ? poolQuery<ResultRow>(db, name, text, params)
        : sql.unsafe<ResultRow>(text, params)

    // Retried (same rows, same event ids: the failed attempt rolled back) only on
    // the races described above; anything else is a defect, logged (a lost database
    // connection by the request's answer, a 503 that Meta retries).
    const attempt = (
      statement: PreparedStatement,
      params: ReadonlyArray<unknown>,
      batched: boolean,
      retries: number
    ): Effect.Effect<ReadonlyArray<ResultRow>> =>
      Effect.catchAll(execute(statement.text, statement.name, params, batched), (error) =>
        retries > 0 && isRetryable(error)
          ? attempt(statement, params, batched, retries - 1)
          : isConnectionFault(error)
          ? Effect.die(error)
          : Effect.zipRight(
            Effect.logError("inbound statement failed", String((error.cause as Error | undefined)?.message)),
            Effect.die(error)
          ))

    /** Writes the plans of one or more POSTs in one statement and answers each POST from its share. */
    const write = (
      plans: ReadonlyArray<InboundPlan>,
      exact: boolean,
      inline: boolean,
      traces: ReadonlyArray<string | undefined>
    ): Effect.Effect<ReadonlyArray<PersistResult>> =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) => {
        const now = new Date(nowMs)
        const period = currentPeriod(now)
        const plan = mergePlans(plans)
        const statement = statementFor(plan, exact)
        const params = paramsOf(statement, plan, now, period, inline, traces, holder)
        return Effect.map(attempt(statement, params, !exact, 4), ([row]) => {
          countEvents(json(row!.event_types))
          for (const d of json(row!.demand)) {
            if (!exact) ledger.addPending(d.account_id, period, d.n)
            else ledger.refresh(d.account_id, d.used ?? d.max, d.max, period)
          }
          return shares(plans, {
            inserted: json(row!.inserted),
            refused: row!.refused,
            unknownStatuses: json(row!.unknown_statuses),
            deliveries: json(row!.deliveries).map((d) => ({ ...d, webhook_secret_encrypted: byteaOf(d.webhook_secret_encrypted) })),
            events: row!.events
          })
        })
      })

    const queue = yield* Queue.unbounded<Queued>()
    // Answers are plain callbacks run by the writer; one that throws must neither
    // stop the writer nor make its batch look failed (and be written again).
    const settle = (item: Queued, exit: Exit.Exit<PersistResult>) =>
      Effect.suspend(() => {
        try {
          item.done(exit)
          return Effect.void
        } catch (defect) {
          return Effect.logError("inbound answer failed", Cause.pretty(Cause.die(defect)))
        }
      })
    // A batch that fails is written again POST by POST, so one bad POST fails alone.
    const writeGroup = (items: ReadonlyArray<Queued>): Effect.Effect<void> =>
      Effect.flatMap(Effect.exit(write(items.map((q) => q.plan), false, items[0]!.inline, items.map((q) => q.traceParent))), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.forEach(items, (item, n) => settle(item, Exit.succeed(exit.value[n]!)), { discard: true })
          : items.length > 1
          ? Effect.forEach(items, (item) => writeGroup([item]), { discard: true })
          : settle(items[0]!, Exit.failCause(exit.cause)))
    // Waiting for work is interruptible; a batch once taken is written and answered
    // even while the service shuts down (a POST must never see its statement cancelled).
    const writer = Effect.uninterruptibleMask((restore) =>
      restore(Queue.take(queue)).pipe(
        Effect.flatMap((first) => Effect.map(Queue.takeUpTo(queue, MAX_BATCH - 1), (rest) => [first, ...rest])),
        Effect.flatMap((items) =>
          Effect.forEach(groupsOf(items), writeGroup, { discard: true }).pipe(
            Effect.ensuring(Effect.sync(() => items.forEach((q) => ledger.release(q.demand))))
          )
        )
      )
    ).pipe(Effect.forever)
    yield* Effect.forkScoped(writer)

    /**
     * Queues the plan for the next batch when it may join one (far below the
     * quota, no template or quality update) and calls `done` after the commit;
     * false when it must run alone (`persist` does that). No fiber per POST: the
     * front route's hot path.
     */
    const enqueue = (plan: InboundPlan, options: PersistOptions, done: (exit: Exit.Exit<PersistResult>) => void): boolean => {
      const demand = demandOf(plan)
      if (!isBatchable(plan) || !ledger.reserve(demand, currentPeriod(new Date()))) return false
      if (queue.unsafeOffer({ plan, inline: options.inline, traceParent: options.traceParent, demand, done })) return true
      ledger.release(demand)
      return false
    }

    /**
     * Writes the plan in its POST's transaction and answers after commit. Far below
     * the quota it joins the next batch; near the cap (or with template and
     * quality updates) it runs alone, consuming quota exactly.
     */
    const persist = (plan: InboundPlan, options: PersistOptions): Effect.Effect<PersistResult> =>
      Effect.async<PersistResult>((resume) => {
        if (!enqueue(plan, options, resume)) resume(alone(plan, options.inline, options.traceParent))
      })

    /** A POST written in a statement of its own, consuming quota exactly (and reading the counters again). */
    const alone = (plan: InboundPlan, inline: boolean, traceParent?: string): Effect.Effect<PersistResult> =>
      Effect.suspend(() => {
        const accounts = [...demandOf(plan).keys()].filter((account) => !ledger.rereading.has(account))
        for (const account of accounts) ledger.rereading.add(account)
        return Effect.map(write([plan], true, inline, [traceParent]), ([result]) => result!).pipe(
          Effect.ensuring(Effect.sync(() => accounts.forEach((account) => ledger.rereading.delete(account))))
        )
      })

    return { enqueue, alone, persist, flushUsage: ledger.flush } as const
  }),
  dependencies: [DeliveryHolder.Default]
}) {}
