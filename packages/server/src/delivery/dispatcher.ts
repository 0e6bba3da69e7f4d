import { SqlClient } from "@effect/sql"
import {
  MAX_DELIVERY_ATTEMPTS,
  NORMALIZED_STUCK_LEASE_SECONDS,
  RETRY_DELAYS_MINUTES,
  USER_AGENT,
  WebhookHeaders
} from "@platform/shared"
import { Chunk, Clock, Duration, Effect, Exit, Option, Queue, Redacted } from "effect"
import { Secrets } from "../crypto/secrets.js"
import { AutoPause } from "./auto-pause.js"
import { deliveryBody } from "./envelope.js"
import { signatureHeaders, signingKeys, type SigningKeys, stripReservedHeaders } from "./signer.js"
import { DeliveryTransport, type PostOutcome } from "./transport.js"
import { awaitPulse, DeliveryWakeup, Pulse } from "./wakeup.js"

export interface ClaimedRow {
  readonly id: number
  readonly subscription_id: number
  readonly event_id: string
  readonly event_type: string
  readonly conversation_peer: string | null
  readonly attempts: number
  readonly envelope: unknown
  readonly target_url: string
  readonly custom_headers: Record<string, string> | null
  readonly secret_encrypted: Uint8Array
  readonly previous_secret_encrypted: Uint8Array | null
  readonly previous_secret_expires_at: Date | null
  readonly sub_version: Date
}

interface CachedKeys {
  readonly version: number
  readonly previousUntil: number
  readonly keys: SigningKeys
  readonly headers: Record<string, string>
}

const EVENT_HEADER = WebhookHeaders.event.toLowerCase()
const EVENT_ID_HEADER = WebhookHeaders.eventId.toLowerCase()
const DELIVERY_ID_HEADER = WebhookHeaders.deliveryId.toLowerCase()

/** Postgres arrays are 1-based: delay before attempt n is `delays[n]`. */
const RETRY_DELAYS = [...RETRY_DELAYS_MINUTES]

/** One POSTed row waiting to be recorded, with the lease it was claimed under. */
interface Settled {
  readonly row: ClaimedRow
  readonly outcome: PostOutcome
  readonly claimedAt: Date
}

export interface PumpOptions {
  /** POSTs kept running at once (default 256; safe-http opens at most 128 connections per origin, the rest queue). */
  readonly maxInFlight?: number
  /** Rows per claim statement (default 100). */
  readonly batchSize?: number
  /** Recovery claim when no wake-up arrives (default 1 s). */
  readonly sweep?: Duration.DurationInput
}

export interface DispatchResult {
  readonly claimed: number
  readonly delivered: number
  readonly failed: number
}

const GONE = 410

/**
 * The normalized dispatcher (SPEC §3.5, §6.2-§6.4, DESIGN §6, §8). Each pass:
 * claim up to `batchSize` due rows with FOR UPDATE SKIP LOCKED (so any number of
 * passes and processes run side by side), POST them concurrently, record every
 * outcome and attempt row in ONE statement. A message.* row waits while an
 * earlier row of the same (subscription, conversation_peer) is pending or
 * delivering, unless that one has been delivering for more than 30 s.
 */
export class Dispatcher extends Effect.Service<Dispatcher>()("@platform/server/Dispatcher", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const wakeup = yield* DeliveryWakeup
    const transport = yield* DeliveryTransport
    const autoPause = yield* AutoPause
    const cache = new Map<number, CachedKeys>()

    /** The cached keys of the row's subscription, when still those of its version. */
    const cachedKeys = (row: ClaimedRow, nowMs: number): CachedKeys | undefined => {
      const cached = cache.get(row.subscription_id)
      const previousUntil = row.previous_secret_expires_at?.getTime() ?? 0
      return cached !== undefined && cached.version === row.sub_version.getTime() &&
          (cached.previousUntil <= nowMs) === (previousUntil <= nowMs)
        ? cached
        : undefined
    }

    // Plaintext secrets are decrypted once per subscription version and kept in
    // memory only; a PATCH or rotation bumps updated_at, which the claim returns.
    const keysFor = (row: ClaimedRow, nowMs: number) =>
      Effect.gen(function*() {
        const cached = cachedKeys(row, nowMs)
        if (cached !== undefined) return cached
        const version = row.sub_version.getTime()
        const previousUntil = row.previous_secret_expires_at?.getTime() ?? 0
        const secret = Redacted.value(yield* secrets.decrypt(row.secret_encrypted))
        const previous = row.previous_secret_encrypted !== null && previousUntil > nowMs
          ? Redacted.value(yield* secrets.decrypt(row.previous_secret_encrypted))
          : null
        const entry: CachedKeys = {
          version,
          previousUntil,
          keys: signingKeys(secret, previous),
          headers: stripReservedHeaders(row.custom_headers ?? {})
        }
        cache.set(row.subscription_id, entry)
        return entry
      })

    // Every claim returns the same row shape: the claimed delivery and what sending needs of its subscription.
    const claimedColumns = sql.literal(
      "w.id, w.subscription_id, w.event_id, w.event_type, w.conversation_peer, w.attempts, w.envelope"
    )
    const withSubscription = sql.literal(`select c.*, s.target_url, s.custom_headers, s.secret_encrypted,
               s.previous_secret_encrypted, s.previous_secret_expires_at, s.updated_at as sub_version
        from claimed c join webhook_subscriptions s on s.id = c.subscription_id
        order by c.id`)

    const claim = (now: Date, batchSize: number) => {
      const stale = new Date(now.getTime() - NORMALIZED_STUCK_LEASE_SECONDS * 1000)
      return sql<ClaimedRow>`
        with due as (
          select d.id
          from webhook_deliveries d
          join webhook_subscriptions s on s.id = d.subscription_id
          where d.status = 'pending' and d.next_retry_at <= ${now}
            and s.is_active and not s.is_paused
            and (d.conversation_peer is null or not exists (
              select 1 from webhook_deliveries p
              where p.subscription_id = d.subscription_id
                and p.conversation_peer = d.conversation_peer
                and p.id < d.id
                and p.status in ('pending', 'delivering')
                and not (p.status = 'delivering' and p.delivering_since < ${stale})
            ))
          -- next_retry_at alone: the order of webhook_deliveries_due_idx, so the scan stops
          -- at the LIMIT instead of testing (and sorting) every pending row first.
          order by d.next_retry_at
          limit ${batchSize}
          for update of d skip locked
        ),
        claimed as (
          update webhook_deliveries w
          set status = 'delivering', delivering_since = ${now}, updated_at = ${now}
          from due where w.id = due.id
          returning ${claimedColumns}
        )
        ${withSubscription}`.pipe(Effect.orDie)
    }

    // The head (oldest open row) of each probed (subscription, peer), when it is pending
    // and due: after a record, the row whose turn came; after fan-out, a conversation's
    // first row. One probe of webhook_deliveries_order_idx per pair instead of the
    // general claim's walk over every blocked row (which, with thousands of
    // conversations waiting on their heads, is most of the table).
    const claimHeads = (now: Date, subscriptions: ReadonlyArray<number>, peers: ReadonlyArray<string>, limit: number) =>
      sql<ClaimedRow>`
        with pairs as (
          select distinct subscription_id, peer
          from unnest(${subscriptions}::bigint[], ${peers}::text[]) as u(subscription_id, peer)
        ),
        heads as (
          select h.id from pairs
          cross join lateral (
            select o.id, o.status from webhook_deliveries o
            where o.subscription_id = pairs.subscription_id and o.conversation_peer = pairs.peer
              and o.status in ('pending', 'delivering')
            order by o.id
            limit 1
          ) h
          where h.status = 'pending'
        ),
        due as (
          select d.id
          from webhook_deliveries d
          join heads on heads.id = d.id
          join webhook_subscriptions s on s.id = d.subscription_id
          where d.status = 'pending' and d.next_retry_at <= ${now} and s.is_active and not s.is_paused
          order by d.id
          limit ${limit}
          for update of d skip locked
        ),
        claimed as (
          update webhook_deliveries w
          set status = 'delivering', delivering_since = ${now}, updated_at = ${now}
          from due where w.id = due.id
          returning ${claimedColumns}
        )
        ${withSubscription}`.pipe(Effect.orDie)

    // A worker that died (or hung past the lease) leaves rows in delivering; they
    // are taken again with a fresh lease. Rare, so kept off the hot claim query.
    const claimExpired = (now: Date, batchSize: number) => {
      const stale = new Date(now.getTime() - NORMALIZED_STUCK_LEASE_SECONDS * 1000)
      return sql<ClaimedRow>`
        with due as (
          select d.id from webhook_deliveries d
          join webhook_subscriptions s on s.id = d.subscription_id
          where d.status = 'delivering' and d.delivering_since < ${stale} and s.is_active and not s.is_paused
          order by d.id
          limit ${batchSize}
          for update of d skip locked
        ),
        claimed as (
          update webhook_deliveries w set delivering_since = ${now}, updated_at = ${now}
          from due where w.id = due.id
          returning ${claimedColumns}
        )
        ${withSubscription}`.pipe(Effect.orDie)
    }

    /** The signed request of one attempt (the timestamp is the claim's). */
    const request = (row: ClaimedRow, entry: CachedKeys, nowMs: number) => {
      const body = deliveryBody(row.envelope)
      const headers: Record<string, string> = {
        ...entry.headers,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        [EVENT_HEADER]: row.event_type,
        [EVENT_ID_HEADER]: row.event_id,
        [DELIVERY_ID_HEADER]: String(row.id),
        ...signatureHeaders(entry.keys, row.event_id, Math.floor(nowMs / 1000), body)
      }
      return { headers, body }
    }

    const send = (row: ClaimedRow, nowMs: number) =>
      Effect.gen(function*() {
        const { body, headers } = request(row, yield* keysFor(row, nowMs), nowMs)
        return yield* transport.post(row.target_url, headers, body)
      })

    /**
     * Records a batch of outcomes in ONE statement: each row's attempt, its next state
     * and retry time, an attempt row, the subscriptions' counters. With `turns` > 0 it
     * also claims (up to `turns`) the next row of each conversation whose row finished
     * here, so a conversation's turn passes without another statement: the next head
     * is the oldest open row of the pair besides the ones this batch finished, taken
     * when pending and due and its subscription had no failure in the batch (those
     * wait for auto-pause to have its say, then their probe).
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
        const rows = yield* sql<ClaimedRow & { readonly failing: ReadonlyArray<string> | null; readonly id: number | null }>`
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
              delivered_at = case when o.ok then ${now}::timestamptz else d.delivered_at end,
              updated_at = ${now}
            from o
            where d.id = o.id and d.status = 'delivering' and d.delivering_since = o.lease
            returning d.id, d.subscription_id, d.developer_account_id, d.conversation_peer, d.attempts, d.status,
                      o.ok, o.response_status, o.latency, o.error, o.gone
          ),
          att as (
            insert into delivery_attempts
              (delivery_id, developer_account_id, subscription_id, attempt, outcome, response_status, latency_ms,
               error, created_at)
            select id, developer_account_id, subscription_id, attempts,
                   case when ok then 'delivered' else 'failed' end, response_status, latency, error, ${now}
            from upd
          ),
          agg as (
            select subscription_id,
                   count(*) filter (where not ok)::int as failures,
                   count(*) filter (where ok)::int as successes,
                   bool_or(gone) as gone
            from upd group by subscription_id
          ),
          subs as (
            -- last_delivery_at is kept to the second so a busy subscription's row is
            -- not rewritten (and locked) by every batch.
            update webhook_subscriptions s set
              last_delivery_at = ${now},
              failure_count = case when a.successes > 0 then 0 else s.failure_count + a.failures end,
              is_active = case when a.gone then false else s.is_active end,
              paused_reason = case when a.gone then 'receiver_gone_410' else s.paused_reason end,
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
          ),
          due as (
            select d.id
            from webhook_deliveries d
            join turn on turn.id = d.id
            join webhook_subscriptions s on s.id = d.subscription_id
            where d.status = 'pending' and d.next_retry_at <= ${now} and s.is_active and not s.is_paused
            order by d.id
            limit ${turns}
            for update of d skip locked
          ),
          claimed as (
            update webhook_deliveries w
            set status = 'delivering', delivering_since = ${now}, updated_at = ${now}
            from due where w.id = due.id
            returning ${claimedColumns}
          ),
          next as (${withSubscription})
          select f.failing, n.*
          from (select array_agg(subscription_id) filter (where failures > 0) as failing from agg) f
          left join next n on true`.pipe(Effect.orDie)
        const failing = (rows[0]?.failing ?? []).map(Number)
        if (failing.length > 0) yield* autoPause.evaluate(failing, now)
        return rows.filter((r) => r.id !== null) as ReadonlyArray<ClaimedRow>
      })

    const deliver = (rows: ReadonlyArray<ClaimedRow>, claimedAt: Date) =>
      Effect.gen(function*() {
        if (rows.length === 0) return { claimed: 0, delivered: 0, failed: 0 }
        const nowMs = claimedAt.getTime()
        const outcomes = yield* Effect.forEach(rows, (row) => send(row, nowMs), { concurrency: "unbounded" })
        yield* record(rows.map((row, i) => ({ row, outcome: outcomes[i]!, claimedAt })))
        const delivered = outcomes.filter((o) => o._tag === "Answered" && o.status >= 200 && o.status < 300).length
        return { claimed: rows.length, delivered, failed: rows.length - delivered }
      })

    /** One pass: claim due rows, POST them concurrently, record the outcomes. */
    const runOnce = Effect.fn("Dispatcher.runOnce")(function*(batchSize: number = 100) {
      const claimedAt = new Date(yield* Clock.currentTimeMillis)
      const rows = yield* claim(claimedAt, batchSize)
      return yield* deliver(rows, claimedAt)
    })

    /** Takes rows whose lease (30 s in delivering) expired and delivers them again. */
    const reclaimExpired = Effect.fn("Dispatcher.reclaimExpired")(function*(batchSize: number = 100) {
      const claimedAt = new Date(yield* Clock.currentTimeMillis)
      const rows = yield* claimExpired(claimedAt, batchSize)
      return yield* deliver(rows, claimedAt)
    })

    /**
     * The continuous dispatcher of a worker process (DESIGN §8), a pipeline that never
     * waits for the slowest POST of a batch: ONE claimer keeps up to `maxInFlight`
     * POSTs running and tops the window up (one claim statement) whenever a batch's
     * worth of it is free; every POST hands its outcome to ONE recorder as soon as it
     * finishes, which writes all outcomes settled meanwhile in one statement
     * (micro-batches form by themselves while the previous record runs). Rows come
     * from fan-out (inserted claimed), from probes of conversations (a recorded row
     * hands its turn to the next one; fan-out names conversations it opened) and from
     * the general claim, run after a wake-up and on the sweep. Scoped: closing the
     * scope interrupts the POSTs in flight, whose rows stay `delivering` until their
     * lease expires (redelivered, never lost).
     */
    const pump = (options: PumpOptions = {}) =>
      Effect.gen(function*() {
        const maxInFlight = Math.max(1, options.maxInFlight ?? 256)
        const batchSize = Math.max(1, Math.min(options.batchSize ?? 100, maxInFlight))
        // Claims of about a batch at a time: on a busy host each statement costs more
        // than the rows in it, so the window is topped up in large steps.
        const topUp = Math.max(1, Math.min(batchSize, Math.ceil(maxInFlight / 2)))
        const sweep = options.sweep ?? Duration.seconds(1)
        const settled = yield* Queue.unbounded<Settled>()
        // POSTs run as Promises, not fibers (a fiber per delivery cost more CPU than its
        // request); closing the scope aborts the ones still running.
        const running = new Set<AbortController>()
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const controller of running) controller.abort()
            running.clear()
          })
        )
        // Fired when a claim's worth of slots (topUp) has become free, not at every POST:
        // whoever waits for room wakes once per batch, not once per delivery.
        const roomy = new Pulse()
        // Slots given back so far: a wait for room that sees none in a whole period is stalled.
        let releases = 0
        const probed = new Pulse()
        // (subscription, conversation_peer) pairs whose head row may be due: one of their
        // rows was just recorded (the next one's turn) or inserted with nothing before it.
        const probes = new Map<string, readonly [number, string]>()
        let inFlight = 0

        const probe = (pairs: ReadonlyArray<readonly [number, string]>) => {
          for (const pair of pairs) probes.set(`${pair[0]}\u0000${pair[1]}`, pair)
          if (pairs.length > 0) probed.fire()
        }

        const release = (slots: number) => {
          const before = maxInFlight - inFlight
          inFlight -= slots
          releases += slots
          if (before < topUp && maxInFlight - inFlight >= topUp) roomy.fire()
        }

        const post = (row: ClaimedRow, claimedAt: Date, entry: CachedKeys) => {
          const { body, headers } = request(row, entry, claimedAt.getTime())
          const controller = new AbortController()
          running.add(controller)
          void transport.send(row.target_url, headers, body, controller).then((outcome) => {
            running.delete(controller)
            if (!controller.signal.aborted) Queue.unsafeOffer(settled, { row, outcome, claimedAt })
            release(1)
          })
        }

        /** Starts rows claimed into `reserved` slots (already counted) and gives back the unused ones. */
        const startClaimed = (rows: ReadonlyArray<ClaimedRow>, claimedAt: Date, reserved: number) =>
          Effect.gen(function*() {
            const nowMs = claimedAt.getTime()
            let started = 0
            for (const row of rows) {
              let entry = cachedKeys(row, nowMs)
              if (entry === undefined) {
                const keys = yield* Effect.exit(keysFor(row, nowMs))
                if (Exit.isFailure(keys)) {
                  yield* Effect.logError(`delivery ${row.id} not sent; retried after its lease`, keys.cause)
                  continue
                }
                entry = keys.value
              }
              try {
                post(row, claimedAt, entry)
              } catch (error) {
                yield* Effect.logError(`delivery ${row.id} not sent; retried after its lease`, error)
                continue
              }
              started++
            }
            if (reserved > started) release(reserved - started)
          })

        /** Claims the head rows of up to `n` probed pairs, oldest probes first. */
        const claimProbed = (n: number) =>
          Effect.gen(function*() {
            const subscriptions: Array<number> = []
            const peers: Array<string> = []
            for (const [key, [subscription, peer]] of probes) {
              if (peers.length === n) break
              probes.delete(key)
              subscriptions.push(subscription)
              peers.push(peer)
            }
            inFlight += peers.length
            const claimedAt = new Date(yield* Clock.currentTimeMillis)
            const rows = yield* claimHeads(claimedAt, subscriptions, peers, peers.length).pipe(
              Effect.catchAllCause((cause) =>
                Effect.logError("claim of conversation heads failed", cause).pipe(
                  Effect.as<ReadonlyArray<ClaimedRow>>([])
                )
              )
            )
            yield* startClaimed(rows, claimedAt, peers.length)
          })

        /** The general claim of `want` due rows; returns how many it found. */
        const claimDue = (want: number) =>
          Effect.gen(function*() {
            // The slots are taken before the statement runs, so fan-out cannot promise them too.
            inFlight += want
            const claimedAt = new Date(yield* Clock.currentTimeMillis)
            const rows = yield* claim(claimedAt, want).pipe(
              Effect.catchAllCause((cause) =>
                Effect.logError("claim failed; retrying", cause).pipe(Effect.as<ReadonlyArray<ClaimedRow>>([]))
              )
            )
            yield* startClaimed(rows, claimedAt, want)
            return rows.length
          })

        const claimer = Effect.gen(function*() {
          // A general claim is owed at start, after a wake-up and after every sweep
          // period; a claim that finds fewer due rows than it asked for pays it off.
          let owed = true
          let wake = wakeup.deliveries.current
          for (;;) {
            // The pulses are taken BEFORE looking, so one fired meanwhile is not lost.
            const slot = roomy.current
            const poked = probed.current
            const free = maxInFlight - inFlight
            // Probes first: one index probe per pair, and the rows found are the oldest work.
            if (probes.size > 0 && (inFlight === 0 || free >= Math.min(topUp, probes.size))) {
              yield* claimProbed(Math.min(free, probes.size))
              continue
            }
            if (owed && (inFlight === 0 || free >= topUp)) {
              // Taken before the claim: a wake-up fired while it runs is awaited below.
              wake = wakeup.deliveries.current
              const want = Math.min(batchSize, free)
              if ((yield* claimDue(want)) < want) owed = false
              continue
            }
            if (owed || probes.size > 0) {
              yield* Effect.promise(() => Promise.race([slot, poked]))
              continue
            }
            const woken = yield* Effect.promise(() => Promise.race([wake.then(() => true), poked.then(() => false)])).pipe(
              Effect.timeoutTo({ duration: sweep, onTimeout: () => true, onSuccess: (w) => w })
            )
            if (woken) owed = true
          }
        })

        const recorder = Effect.gen(function*() {
          for (;;) {
            let batch = Chunk.toReadonlyArray(yield* Queue.takeBetween(settled, 1, 1000))
            // Under load (many POSTs running), give a record statement a few ms to fill
            // up; statements, not rows, are what a busy database pays for.
            if (batch.length < 50 && inFlight >= 64) {
              yield* Effect.sleep(Duration.millis(3))
              batch = batch.concat(Chunk.toReadonlyArray(yield* Queue.takeUpTo(settled, 1000 - batch.length)))
            }
            // The next row of each conversation recorded here may be due now: the record
            // claims them, probes find the ones it could not. Their predecessors' POSTs
            // gave back a slot each; the claimer may have taken those meanwhile, so the
            // window may run over by up to a batch here (undici queues past its pool).
            const pairs = new Map<string, readonly [number, string]>()
            for (const { row } of batch) {
              if (row.conversation_peer !== null) {
                pairs.set(`${row.subscription_id}\u0000${row.conversation_peer}`, [row.subscription_id, row.conversation_peer])
              }
            }
            const turns = Math.max(0, Math.min(pairs.size, 2 * maxInFlight - inFlight))
            inFlight += turns
            const claimedAt = new Date(yield* Clock.currentTimeMillis)
            const next = yield* record(batch, turns, claimedAt).pipe(
              Effect.catchAllCause((cause) =>
                Effect.logError("recording failed; rows retried after their lease", cause).pipe(
                  Effect.as<ReadonlyArray<ClaimedRow>>([])
                )
              )
            )
            yield* startClaimed(next, claimedAt, turns)
            for (const row of next) pairs.delete(`${row.subscription_id}\u0000${row.conversation_peer}`)
            probe([...pairs.values()])
          }
        })

        // Fan-out of this process may insert rows already claimed into reserved slots.
        yield* wakeup.registerDirect({
          reserve: (max) => {
            const granted = Math.max(0, Math.min(max, maxInFlight - inFlight))
            inFlight += granted
            return granted
          },
          start: startClaimed,
          probe,
          room: (timeout) =>
            Effect.gen(function*() {
              for (;;) {
                const slot = roomy.current
                const free = maxInFlight - inFlight
                if (free >= topUp) return free
                const seen = releases
                const woke = yield* Effect.promise(() => slot).pipe(Effect.timeoutOption(timeout))
                if (Option.isNone(woke) && releases === seen) return 0
              }
            })
        })
        yield* Effect.forkScoped(claimer)
        yield* Effect.forkScoped(recorder)
      })

    return { runOnce, reclaimExpired, pump } as const
  })
}) {}
