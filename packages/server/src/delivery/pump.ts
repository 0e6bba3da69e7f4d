import { type Cause, Chunk, Clock, Duration, Effect, Exit, Fiber, Option, Queue, type Scope } from "effect"
import { hasConnectionFault } from "../db/connection-fault.js"
import { outageWatch } from "../db/outage.js"
import type { Shutdown } from "../jobs/shutdown.js"
import { manualSpans } from "../telemetry/tracing.js"
import { endAttemptSpan, startAttemptSpan } from "./attempt-span.js"
import type { ClaimedRow } from "./claims.js"
import type { Settled } from "./record.js"
import { type CachedKeys, unsendable } from "./requests.js"
import type { DeliveryTransportShape } from "./transport.js"
import { awaitAny, Pulse } from "./wakeup.js"
import type { DeliveryWakeup } from "./wakeup.js"

export interface PumpOptions {
  /** POSTs kept running at once (default 256; net/pinned-pools.ts opens at most 128 connections per origin, the rest wait their turn). */
  readonly maxInFlight?: number
  /** Rows per claim statement (default 100). */
  readonly batchSize?: number
  /** Recovery claim when no wake-up arrives (default 1 s). */
  readonly sweep?: Duration.DurationInput
}

/**
 * Periods a wait for room lasts at most while slots free up but go to the claimer
 * (older pending rows): then fan-out goes on without room, its rows pending, so a
 * backlog of retries does not hold back new events (nor other processes, buffers).
 */
const ROOM_ROUNDS = 10

const pairKey = (subscription: number, peer: string) => `${subscription}\u0000${peer}`

/** What an attempt's span says of its row. */
export const attemptAttributes = (row: ClaimedRow) => ({
  "delivery.id": row.id,
  "delivery.attempt": row.attempts + 1,
  "event.id": row.event_id,
  "event.type": row.event_type,
  "subscription.id": row.subscription_id
})

const nothingLeased = { claimedAt: new Date(0), rows: [] as ReadonlyArray<ClaimedRow> }

/** A claim or record that failed for good: logged (an outage was, once, by its watch), and nothing taken. */
const orNothing = (what: string) =>
  Effect.catchAllCause((cause: Cause.Cause<unknown>) =>
    Effect.as(hasConnectionFault(cause) ? Effect.void : Effect.logError(what, cause), nothingLeased))

/** What the pipeline needs of the dispatcher. */
export interface PumpParts {
  readonly wakeup: DeliveryWakeup
  readonly transport: DeliveryTransportShape
  readonly claim: (now: Date, batchSize: number) => Effect.Effect<ReadonlyArray<ClaimedRow>>
  readonly claimHeads: (
    now: Date,
    subscriptions: ReadonlyArray<number>,
    peers: ReadonlyArray<string>,
    limit: number
  ) => Effect.Effect<ReadonlyArray<ClaimedRow>>
  readonly record: (settled: ReadonlyArray<Settled>, turns: number, at: Date) => Effect.Effect<ReadonlyArray<ClaimedRow>>
  /** Hands claimed rows back, pending and due (claims.ts). */
  readonly release: (rows: ReadonlyArray<{ readonly id: number; readonly lease: Date }>) => Effect.Effect<void>
  readonly shutdown: Shutdown
  readonly cachedKeys: (row: ClaimedRow, nowMs: number) => CachedKeys | undefined
  readonly keysFor: (row: ClaimedRow, nowMs: number) => Effect.Effect<CachedKeys>
  readonly request: (row: ClaimedRow, entry: CachedKeys, nowMs: number) => {
    readonly headers: Record<string, string>
    readonly body: Uint8Array
  }
}

/** A running pump, as the one who started it sees it. */
export interface Pump {
  /**
   * Completes once the pump has nothing in hand: no claim owed or running, no POST
   * running, no outcome left to record, no conversation left to probe, no wake-up
   * pending. Only a wake-up, a hand-over from fan-out or the sweep gives it work
   * again, so whoever stops writing can tell when what was due has been sent and
   * recorded: the tests deliver through the pump and wait on this.
   */
  readonly idle: Effect.Effect<void>
}

/**
 * The continuous dispatcher of a worker process (DESIGN §8), a pipeline that never
 * waits for the slowest POST of a batch: ONE claimer keeps up to `maxInFlight` POSTs
 * running and tops the window up (one claim statement) whenever a batch's worth of
 * it is free; every POST hands its outcome to the recorders as soon as it finishes,
 * each of which writes all outcomes settled meanwhile in one statement (micro-batches
 * form by themselves while a record runs). Rows come from fan-out (inserted
 * claimed), from the record of a conversation's previous row (its turn), from probes
 * of conversations (fan-out names the ones it opened; turns a record could not take)
 * and from the general claim, run after a wake-up and on the sweep. While the database
 * is unreachable, claims and records are tried again with backoff and the outage is
 * logged once (db/outage.ts); a claim gives up once the stop begins. Scoped: closing
 * the scope is a stop (jobs/shutdown.ts): nothing more is claimed (nor reserved for
 * fan-out, nor taken as a conversation's turn), the POSTs in flight finish and are
 * recorded until the stop's deadline, and the rows of those still running then are
 * aborted and handed back, pending (redelivered at once, never lost).
 */
export const runPump = (parts: PumpParts, options: PumpOptions = {}): Effect.Effect<Pump, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { claim, claimHeads, keysFor, cachedKeys, record, request, shutdown, transport, wakeup } = parts
    const maxInFlight = Math.max(1, options.maxInFlight ?? 256)
    const batchSize = Math.max(1, Math.min(options.batchSize ?? 100, maxInFlight))
    // Claims of about a batch at a time: on a busy host each statement costs more
    // than the rows in it, so the window is topped up in large steps.
    const topUp = Math.max(1, Math.min(batchSize, Math.ceil(maxInFlight / 2)))
    const sweep = options.sweep ?? Duration.seconds(1)
    const settled = yield* Queue.unbounded<Settled>()
    const spans = yield* manualSpans
    // POSTs run as Promises, not fibers (a fiber per delivery cost more CPU than its
    // request), each with the row and lease it sends; closing the scope aborts the ones
    // still running. Their outcomes are dropped; a POST's own deadline aborts its
    // controller too, so leaving `running`, not the signal, tells a shutdown from a timeout.
    const running = new Map<AbortController, { readonly id: number; readonly lease: Date }>()
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const controller of running.keys()) controller.abort()
        running.clear()
      })
    )
    // The stop: fired once it has begun (here or anywhere in the process); claiming ends.
    const stop = new Pulse()
    let stopping = false
    const beginStop = () => {
      if (stopping) return
      stopping = true
      stop.fire()
    }
    // Outcomes offered to the recorders and not yet recorded (the queue alone does not say:
    // an outcome offered to a waiting recorder never shows in its size); with `running`,
    // what a stop waits for, and part of what `idle` waits for.
    let unrecorded = 0
    // Fired, once stopping, whenever a POST or a record ends.
    const settling = new Pulse()
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
    // The wake-up the claimer waits on when it has nothing to do (undefined while it
    // works); one fired since has replaced wakeup.deliveries.current.
    let parkedOn: Promise<void> | undefined
    const quieted = new Pulse()
    const isIdle = () =>
      parkedOn === wakeup.deliveries.current && inFlight === 0 && unrecorded === 0 && probes.size === 0
    const settle = () => {
      if (isIdle()) quieted.fire()
    }

    // One outage line for the claimer and both recorders; a claim or record tried again
    // after a wait takes its lease at the time it runs, not when it was first tried.
    const outage = outageWatch("delivery dispatcher")
    const leased = (statement: (at: Date) => Effect.Effect<ReadonlyArray<ClaimedRow>>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const claimedAt = new Date(now)
        return Effect.map(statement(claimedAt), (rows) => ({ claimedAt, rows }))
      })
    const untilStopping = { while: () => !stopping }

    const probe = (pairs: ReadonlyArray<readonly [number, string]>) => {
      for (const pair of pairs) probes.set(pairKey(pair[0], pair[1]), pair)
      if (pairs.length > 0) probed.fire()
    }

    const release = (slots: number) => {
      const before = maxInFlight - inFlight
      inFlight -= slots
      releases += slots
      if (before < topUp && maxInFlight - inFlight >= topUp) roomy.fire()
      settle()
    }

    const post = (row: ClaimedRow, claimedAt: Date, entry: CachedKeys) => {
      const missing = unsendable(row)
      if (missing !== undefined) {
        unrecorded++
        Queue.unsafeOffer(settled, { row, outcome: missing, claimedAt })
        return release(1)
      }
      const { body, headers } = request(row, entry, claimedAt.getTime())
      const controller = new AbortController()
      running.set(controller, { id: row.id, lease: claimedAt })
      const span = spans && startAttemptSpan(spans, "normalized", row.trace_parent, attemptAttributes(row))
      void transport.send(entry.url, headers, body, controller).then((outcome) => {
        endAttemptSpan(span, outcome)
        if (!running.delete(controller)) return
        unrecorded++
        Queue.unsafeOffer(settled, { row, outcome, claimedAt })
        release(1)
        if (stopping) settling.fire()
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
        const { claimedAt, rows } = yield* outage.retrying(
          leased((at) => claimHeads(at, subscriptions, peers, peers.length)),
          untilStopping
        ).pipe(orNothing("claim of conversation heads failed"))
        yield* startClaimed(rows, claimedAt, peers.length)
      })

    /** The general claim of `want` due rows; returns how many it found. */
    const claimDue = (want: number) =>
      Effect.gen(function*() {
        // The slots are taken before the statement runs, so fan-out cannot promise them too.
        inFlight += want
        const { claimedAt, rows } = yield* outage.retrying(leased((at) => claim(at, want)), untilStopping).pipe(
          orNothing("claim failed; retrying")
        )
        yield* startClaimed(rows, claimedAt, want)
        return rows.length
      })

    const claimer = Effect.gen(function*() {
      // A general claim is owed at start, after a wake-up and after every sweep
      // period; a claim that finds fewer due rows than it asked for pays it off.
      let owed = true
      let wake = wakeup.deliveries.current
      const stopped = stop.current
      while (!stopping) {
        // The pulses are taken BEFORE looking, so one fired meanwhile is not lost.
        const slot = roomy.current
        const poked = probed.current
        const free = maxInFlight - inFlight
        // Probes first: one index probe per pair, and the rows found are the oldest work
        // (with the window full, even a few probes wait for a claim's worth of room).
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
          yield* awaitAny([[roomy, slot], [probed, poked], [stop, stopped]])
          continue
        }
        parkedOn = wake
        settle()
        const woken = yield* awaitAny([[wakeup.deliveries, wake], [probed, poked], [stop, stopped]]).pipe(
          Effect.timeoutTo({ duration: sweep, onTimeout: () => true, onSuccess: (first) => first === 0 })
        )
        parkedOn = undefined
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
        // window may run over by up to a batch here (net/pinned-pools.ts queues past its connections).
        const pairs = new Map<string, readonly [number, string]>()
        for (const { row } of batch) {
          if (row.conversation_peer !== null) {
            pairs.set(pairKey(row.subscription_id, row.conversation_peer), [row.subscription_id, row.conversation_peer])
          }
        }
        // Stopping, a record claims no turn: the conversation's next row waits, pending.
        const turns = stopping ? 0 : Math.max(0, Math.min(pairs.size, 2 * maxInFlight - inFlight))
        inFlight += turns
        // While the database is unreachable the outcomes wait here and are recorded once it
        // is back (the record matches each row's lease, so a retry never counts one twice);
        // a stop waits for them until its deadline, then hands the rows back.
        const { claimedAt, rows: next } = yield* outage.retrying(leased((at) => record(batch, turns, at))).pipe(
          orNothing("recording failed; rows retried after their lease")
        )
        yield* startClaimed(next, claimedAt, turns)
        for (const row of next) pairs.delete(pairKey(row.subscription_id, row.conversation_peer ?? ""))
        probe([...pairs.values()])
        unrecorded -= batch.length
        settle()
        if (stopping) settling.fire()
      }
    })

    // Fan-out of this process may insert rows already claimed into reserved slots.
    yield* wakeup.registerDirect({
      reserve: (max) => {
        // Stopping: fan-out's rows go in pending, for whichever process runs next.
        if (stopping) return 0
        const granted = Math.max(0, Math.min(max, maxInFlight - inFlight))
        inFlight += granted
        return granted
      },
      start: startClaimed,
      probe,
      room: (timeout) =>
        Effect.gen(function*() {
          for (let round = 0; round < ROOM_ROUNDS && !stopping; round++) {
            const slot = roomy.current
            const free = maxInFlight - inFlight
            if (free >= topUp) return free
            const seen = releases
            const woke = yield* awaitAny([[roomy, slot]]).pipe(Effect.timeoutOption(timeout))
            if (Option.isNone(woke) && releases === seen) return 0
          }
          return 0
        })
    })
    const claiming = yield* Effect.forkScoped(claimer)
    // Two recorders: while one statement runs, the other takes the outcomes settling
    // meanwhile, so a conversation's next turn waits for one record, not for two.
    yield* Effect.forkScoped(recorder)
    yield* Effect.forkScoped(recorder)
    // A stop begun elsewhere (the HTTP drain runs beside the workers) ends claiming at once.
    yield* Effect.forkScoped(Effect.zipRight(shutdown.stopped, Effect.sync(beginStop)))

    // Added last, so it runs first on close: before the recorders and the claimer are
    // interrupted and the POSTs aborted. Closed without a stop, they are at once.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        if (!shutdown.isStopping()) return
        beginStop()
        const quiet = () => running.size === 0 && unrecorded === 0
        const finished = yield* shutdown.untilDeadline(Effect.zipRight(
          Fiber.await(claiming),
          Effect.promise(async () => {
            for (let next = settling.current; !quiet(); next = settling.current) await next
          })
        ))
        if (Option.isSome(finished)) return
        // The deadline: what is still being sent (or was sent and is not recorded) goes back.
        const left = [...running.values()]
        for (const controller of running.keys()) controller.abort()
        running.clear()
        for (const { row, claimedAt } of Chunk.toReadonlyArray(yield* Queue.takeAll(settled))) {
          left.push({ id: row.id, lease: claimedAt })
        }
        yield* parts.release(left).pipe(
          Effect.zipRight(Effect.logWarning(`stop: ${left.length} deliveries in flight at the deadline handed back, pending`)),
          Effect.catchAllCause((cause) => Effect.logError("stop: handing back the deliveries in flight failed; retried after their lease", cause))
        )
      })
    )

    const idle: Effect.Effect<void> = Effect.suspend(() => {
      // Taken before looking, so a pulse fired meanwhile is not lost.
      const pulse = quieted.current
      return isIdle() ? Effect.void : Effect.zipRight(awaitAny([[quieted, pulse]]), idle)
    })
    return { idle }
  })
