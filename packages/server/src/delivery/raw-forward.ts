import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Clock, Effect, FiberSet, Queue, Redacted, Stream } from "effect"
import { RAW_FORWARD_DEAD_LETTER_DELAY_MINUTES } from "@platform/shared"
import { AppConfig } from "../config.js"
import { Secrets } from "../crypto/secrets.js"
import { jsonbRows } from "../db/jsonb-rows.js"
import { Shutdown } from "../jobs/shutdown.js"
import { observeDeliveryAttempt } from "../telemetry/metrics.js"
import { manualSpans } from "../telemetry/tracing.js"
import { endAttemptSpan, startAttemptSpan } from "./attempt-span.js"
import { platformSignature } from "./signer.js"
import { DeliveryHolder } from "./holder.js"
import { DeliveryTransport } from "./transport.js"
import { Pulse } from "./wakeup.js"
import { pgNotify } from "../db/client.js"
import { PgNotifications } from "../db/notifications.js"

/** A raw-forward row this process holds the lease of, with what sending it needs. */
export interface ClaimedDelivery {
  readonly id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number
  /** Attempts made before this one. */
  readonly attempts: number
  readonly body: string
  readonly webhook_url: string | null
  readonly webhook_secret_encrypted: Uint8Array | null
  /** The inbound POST's span (a `traceparent`), which the attempts link to; null without tracing. */
  readonly trace_parent?: string | null
}

/** SPEC §6.5: attempt 1 inline, then 1, 5, 30 and 120 minutes; the 5th failure is final. */
export const RAW_FORWARD_RETRY_MINUTES = [1, 5, 30, 120] as const
export const RAW_FORWARD_MAX_ATTEMPTS = 5
/**
 * A claimed row's `next_retry_at` is pushed 2 minutes ahead: longer than any
 * attempt (10 s timeout), so a live worker never loses its row. It bounds a holder
 * that is alive but hung; a dead one (its heartbeat lapsed, holder.ts) has its rows
 * taken over within seconds (`takeOverDead`).
 */
export const RAW_FORWARD_LEASE_MS = 2 * 60_000
const CLAIM_BATCH = 100
const POST_CONCURRENCY = 32
const USER_AGENT = "Service-Platform/1.0"
const NOTIFY_CHANNEL = "platform_raw_forward"

interface Outcome {
  readonly id: number
  readonly prev: number
  readonly status: "delivered" | "pending" | "failed"
  readonly attempts: number
  readonly next_retry_at: string | null
  readonly response_status: number | null
  readonly snippet: string | null
  readonly error: string | null
  readonly at: string
}

/** What a failed attempt leads to: the next retry time, or null when it was the last. */
export const nextRetryAt = (attemptNumber: number, nowMs: number): number | null =>
  attemptNumber >= RAW_FORWARD_MAX_ATTEMPTS
    ? null
    : nowMs + RAW_FORWARD_RETRY_MINUTES[attemptNumber - 1]! * 60_000

/**
 * Raw-forward delivery (SPEC §3.6, §6.5). Rows are written by the inbound
 * transaction; this service sends them (inline right after that commit, and
 * from the sweep), signs the stored bytes with the channel's webhook secret,
 * and records each outcome as its POST settles (with the others settled
 * meanwhile, in one statement), so a crash repeats only the POSTs that were in
 * flight. Rows carry their holder (this process, holder.ts). Claiming uses
 * `FOR UPDATE SKIP LOCKED`, so any number of worker processes share the table.
 * On a stop the sweep claims no further batch; attempts in flight (inline ones
 * included) finish within the grace period, and rows still being sent at its
 * deadline are handed back, pending and due.
 */
export class RawForward extends Effect.Service<RawForward>()("@platform/server/RawForward", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient
    const config = yield* AppConfig
    const secrets = yield* Secrets
    const transport = yield* DeliveryTransport
    const shutdown = yield* Shutdown
    const holder = yield* DeliveryHolder
    const pulse = new Pulse()
    const inflight = yield* FiberSet.make()
    // Runs before the set's own finalizer interrupts the inline attempts: a stop gives them its grace period.
    yield* Effect.addFinalizer(() => shutdown.untilDeadline(FiberSet.awaitEmpty(inflight)))
    const permits = yield* Effect.makeSemaphore(POST_CONCURRENCY * 4)
    const spans = yield* manualSpans

    // One NOTIFY after commit, coalesced while one is in flight (DESIGN §8).
    const notifyQueue = yield* Queue.sliding<void>(1)
    yield* Queue.take(notifyQueue).pipe(
      Effect.zipRight(pgNotify(pg, NOTIFY_CHANNEL, "1").pipe(Effect.catchAll(() => Effect.void))),
      Effect.forever,
      Effect.forkScoped
    )
    if (config.runsWorkers) {
      const payloads = yield* (yield* PgNotifications).subscribe(NOTIFY_CHANNEL)
      yield* payloads.pipe(Stream.runForEach(() => Effect.sync(() => pulse.fire())), Effect.forkScoped)
    }

    const headersFor = (row: ClaimedDelivery, bytes: Uint8Array) =>
      Effect.gen(function*() {
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "x-platform-delivery-id": String(row.id)
        }
        if (row.webhook_secret_encrypted !== null) {
          const secret = yield* secrets.decrypt(row.webhook_secret_encrypted)
          headers["x-platform-signature"] = platformSignature(Redacted.value(secret), bytes)
        }
        return headers
      })

    const send = (row: ClaimedDelivery) =>
      Effect.gen(function*() {
        const attempt = row.attempts + 1
        if (row.webhook_url === null) {
          return { row, attempt, answered: null, error: "the channel no longer has a webhook_url", latencyMs: 0 }
        }
        const bytes = Buffer.from(row.body, "utf8")
        const headers = yield* headersFor(row, bytes)
        const span = startAttemptSpan(spans, "raw_forward", row.trace_parent, {
          "delivery.id": row.id,
          "delivery.attempt": attempt,
          "channel.id": row.platform_channel_id
        })
        const outcome = yield* transport.post(row.webhook_url, headers, bytes).pipe(
          Effect.onInterrupt(() => Effect.sync(() => span?.end("interrupted")))
        )
        endAttemptSpan(span, outcome)
        return outcome._tag === "Answered"
          ? {
            row,
            attempt,
            answered: outcome,
            error: outcome.status >= 200 && outcome.status < 300 ? null : `HTTP ${outcome.status}`,
            latencyMs: outcome.latencyMs
          }
          : { row, attempt, answered: null, error: outcome.reason, latencyMs: outcome.latencyMs }
      })

    const record = (outcomes: ReadonlyArray<Outcome>) =>
      outcomes.length === 0 ? Effect.void : sql`
        update platform_deliveries d set
          status = x.status, attempts = x.attempts,
          next_retry_at = coalesce(x.next_retry_at, d.next_retry_at),
          response_status = x.response_status, response_body_snippet = x.snippet, last_error = x.error,
          delivered_at = case when x.status = 'delivered' then x.at end, updated_at = x.at
        from jsonb_to_recordset(${jsonbRows(outcomes)}::jsonb) as x(id bigint, prev int, status text, attempts int,
          next_retry_at timestamptz, response_status int, snippet text, error text, at timestamptz)
        where d.id = x.id and d.status = 'delivering' and d.attempts = x.prev
          and d.holder is not distinct from ${holder.id}::int8`.pipe(Effect.orDie, Effect.asVoid)

    /** Leased rows handed back unsent: pending and due at once, not after the 2-minute lease. */
    const release = (rows: ReadonlyArray<ClaimedDelivery>) =>
      sql`
        update platform_deliveries d set status = 'pending', next_retry_at = now(), updated_at = now()
        from jsonb_to_recordset(${jsonbRows(rows.map((r) => ({ id: r.id, prev: r.attempts })))}::jsonb) as x(id bigint, prev int)
        where d.id = x.id and d.status = 'delivering' and d.attempts = x.prev
          and d.holder is not distinct from ${holder.id}::int8`.pipe(Effect.orDie, Effect.asVoid)

    /** What an attempt leads to, as the record writes it. */
    const outcomeOf = ({ answered, attempt, error, latencyMs, row }: Effect.Effect.Success<ReturnType<typeof send>>, nowMs: number) =>
      Effect.gen(function*() {
        const retry = error === null ? null : nextRetryAt(attempt, nowMs)
        const status = error === null ? "delivered" : retry === null ? "failed" : "pending"
        observeDeliveryAttempt("raw_forward", answered?.status ?? null, latencyMs, retry === null)
        if (status === "failed") {
          yield* Effect.logWarning("raw forward failed for good").pipe(
            Effect.annotateLogs({ delivery_id: row.id, attempts: attempt, error })
          )
        }
        // SPEC §6.5 states a 360-minute delay at dead-letter; nothing takes a failed row again.
        const stated = status === "failed" ? nowMs + RAW_FORWARD_DEAD_LETTER_DELAY_MINUTES * 60_000 : retry
        return {
          id: row.id,
          prev: row.attempts,
          status,
          attempts: attempt,
          next_retry_at: stated === null ? null : new Date(stated).toISOString(),
          response_status: answered?.status ?? null,
          snippet: answered?.snippet ?? null,
          error,
          at: new Date(nowMs).toISOString()
        } satisfies Outcome
      })

    /**
     * Sends leased rows concurrently and records each outcome as its POST settles: one
     * record statement at a time, which takes every outcome settled while the one before
     * ran. A crash repeats only the POSTs in flight (and outcomes waiting for that statement).
     */
    const deliver = Effect.fn("RawForward.deliver")(function*(rows: ReadonlyArray<ClaimedDelivery>) {
      const settled: Array<Outcome> = []
      const recording = yield* Effect.makeSemaphore(1)
      const recordSettled = recording.withPermits(1)(Effect.suspend(() => {
        const batch = settled.splice(0)
        return batch.length === 0 ? Effect.void : record(batch)
      }))
      const attempt = (row: ClaimedDelivery) =>
        Effect.gen(function*() {
          const outcome = yield* outcomeOf(yield* send(row), yield* Clock.currentTimeMillis)
          settled.push(outcome)
          yield* recordSettled
          return outcome
        })
      // Interrupted at a stop's deadline, the rows not recorded go back rather than wait out
      // their lease (the release matches their attempts: a recorded row is not one of them).
      return yield* Effect.forEach(rows, attempt, { concurrency: POST_CONCURRENCY }).pipe(
        Effect.onInterrupt(() => shutdown.isStopping() ? release(rows) : Effect.void)
      )
    })

    /**
     * The raw forwards of dead holders (holder.ts), leased to them for up to 2 minutes more:
     * due at once, and the sweepers woken to take them. Returns how many.
     */
    const takeOverDead = Effect.gen(function*() {
      const dead = yield* holder.dead
      if (dead.length === 0) return 0
      const nowMs = yield* Clock.currentTimeMillis
      const now = new Date(nowMs).toISOString()
      // A lease runs at most 2 minutes ahead: the range keeps this on platform_deliveries_due_idx.
      const horizon = new Date(nowMs + RAW_FORWARD_LEASE_MS + 60_000).toISOString()
      const rows = yield* sql<{ readonly id: number }>`
        update platform_deliveries set next_retry_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
        where status = 'delivering' and next_retry_at > ${now}::timestamptz and next_retry_at <= ${horizon}::timestamptz
          and holder = any(${dead}::bigint[])
        returning id`
      if (rows.length > 0) {
        yield* Effect.logInfo(`${rows.length} raw forwards of a process that stopped renewing its lease taken over`)
        pulse.fire()
        Queue.unsafeOffer(notifyQueue, undefined)
      }
      return rows.length
    })

    /** Leases up to `limit` due rows (pending, or delivering with an expired lease). */
    const claim = (limit: number) =>
      Effect.gen(function*() {
        const nowMs = yield* Clock.currentTimeMillis
        const now = new Date(nowMs).toISOString()
        const lease = new Date(nowMs + RAW_FORWARD_LEASE_MS).toISOString()
        const rows = yield* sql<Omit<ClaimedDelivery, "webhook_secret_encrypted"> & { webhook_secret_encrypted: Uint8Array | null }>`
          with due as (
            select id from platform_deliveries
            where status in ('pending', 'delivering') and next_retry_at <= ${now}::timestamptz
            order by next_retry_at
            limit ${limit}
            for update skip locked
          )
          update platform_deliveries d set status = 'delivering', next_retry_at = ${lease}::timestamptz,
            holder = ${holder.id}::int8, updated_at = now()
          from due, platform_channels c
          where d.id = due.id and c.id = d.platform_channel_id
          returning d.id, d.developer_account_id, d.platform_channel_id, d.attempts, d.body,
            c.webhook_url, c.webhook_secret_encrypted, d.trace_parent`.pipe(Effect.orDie)
        return rows.map((r) => ({
          ...r,
          webhook_secret_encrypted: r.webhook_secret_encrypted === null ? null : new Uint8Array(r.webhook_secret_encrypted)
        }))
      })

    /** One sweep: claims and delivers due rows until none is left (or a stop); returns how many were attempted. */
    const sweepOnce = Effect.fn("RawForward.sweep")(function*() {
      let total = 0
      for (;;) {
        if (shutdown.isStopping()) return total
        const rows = yield* claim(CLAIM_BATCH)
        if (rows.length === 0) return total
        yield* deliver(rows)
        total += rows.length
        if (rows.length < CLAIM_BATCH) return total
      }
    })

    /**
     * After the inbound commit: attempt 1 of rows written already leased to this
     * process, on a fiber of the service (the HTTP answer does not wait for it).
     */
    const dispatchInline = (rows: ReadonlyArray<ClaimedDelivery>) =>
      rows.length === 0 ? Effect.void : FiberSet.run(inflight, permits.withPermits(1)(deliver(rows)).pipe(
        Effect.catchAllCause((cause) => Effect.logError("inline raw forward failed; the sweep will retry", cause))
      )).pipe(Effect.asVoid)

    /** After the commit of pending rows: wakes the sweepers here and in other processes. */
    const rowsWritten = Effect.sync(() => {
      pulse.fire()
      Queue.unsafeOffer(notifyQueue, undefined)
    })

    return { claim, deliver, sweepOnce, takeOverDead, dispatchInline, rowsWritten, pulse, holder: holder.id } as const
  }),
  dependencies: [DeliveryTransport.Live, DeliveryHolder.Default]
}) {}
