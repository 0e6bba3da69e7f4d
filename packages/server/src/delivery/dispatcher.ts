import { Clock, Effect, Exit } from "effect"
import { Secrets } from "../crypto/secrets.js"
import { Shutdown } from "../jobs/shutdown.js"
import { AutoPause } from "./auto-pause.js"
import { type ClaimedRow, makeClaims } from "./claims.js"
import { EngineSql } from "./engine-sql.js"
import { DeliveryHolder } from "./holder.js"
import { manualSpans } from "../telemetry/tracing.js"
import { endAttemptSpan, startAttemptSpan } from "./attempt-span.js"
import { attemptAttributes, type PumpOptions, runPump } from "./pump.js"
import { makeRecord } from "./record.js"
import { type CachedKeys, makeRequests, unsendable } from "./requests.js"
import { DeliveryTransport } from "./transport.js"
import { DeliveryWakeup } from "./wakeup.js"

export type { ClaimedRow } from "./claims.js"
export type { Pump, PumpOptions } from "./pump.js"

export interface DispatchResult {
  readonly claimed: number
  readonly delivered: number
  readonly failed: number
}

/**
 * The normalized dispatcher (SPEC §3.5, §6.2-§6.4, DESIGN §6, §8): the claims,
 * signed requests and record of the delivery engine, put together for the two
 * loops of a worker process. `pump` is the continuous pipeline (pump.ts): rows
 * claimed with FOR UPDATE SKIP LOCKED (so any number of processes run side by
 * side), POSTed, every outcome recorded (a row per failed attempt, the attempts
 * counted) in micro-batches of ONE statement each (record.ts). A message.* row
 * waits while an earlier row of the same (subscription, conversation_peer) is
 * pending or delivering, unless that one has been delivering for more than 30 s.
 * `reclaimExpired` takes the rows whose lease expired: delivering for more than 30 s,
 * or held by a process whose heartbeat lapsed (holder.ts).
 */
export class Dispatcher extends Effect.Service<Dispatcher>()("@platform/server/Dispatcher", {
  effect: Effect.gen(function*() {
    const engine = yield* EngineSql
    const wakeup = yield* DeliveryWakeup
    const transport = yield* DeliveryTransport
    const shutdown = yield* Shutdown
    const holder = yield* DeliveryHolder
    const claims = makeClaims(engine, holder.id)
    const record = makeRecord(engine, yield* AutoPause, holder.id)
    const requests = makeRequests(engine.sql, yield* Secrets)
    const spans = yield* manualSpans

    const send = (row: ClaimedRow, keys: Exit.Exit<CachedKeys>, nowMs: number) => {
      // Deleted since the claim (its rows with it: the record finds none), or its secret unreadable.
      if (Exit.isFailure(keys)) return Effect.succeed({ _tag: "NoAnswer", reason: "subscription unavailable", latencyMs: 0 } as const)
      const missing = unsendable(row)
      if (missing !== undefined) return Effect.succeed(missing)
      const { body, headers } = requests.request(row, keys.value, nowMs)
      const span = startAttemptSpan(spans, "normalized", row.trace_parent, attemptAttributes(row))
      return transport.post(keys.value.url, headers, body).pipe(
        Effect.tap((outcome) => Effect.sync(() => endAttemptSpan(span, outcome))),
        Effect.onInterrupt(() => Effect.sync(() => span?.end("interrupted")))
      )
    }

    const deliver = (rows: ReadonlyArray<ClaimedRow>, claimedAt: Date) =>
      Effect.gen(function*() {
        if (rows.length === 0) return { claimed: 0, delivered: 0, failed: 0 }
        const nowMs = claimedAt.getTime()
        // Keys one row after the other (a subscription is read once, as in the pump), then
        // every POST at once, started in the rows' order.
        const keys = yield* Effect.forEach(rows, (row) =>
          Effect.exit(requests.keysFor(row, nowMs)).pipe(
            Effect.tap((keys) =>
              Exit.isFailure(keys) ? Effect.logError(`delivery ${row.id}: its subscription is unavailable`, keys.cause) : Effect.void
            )
          ))
        // Interrupted at a stop's deadline, the rows go back pending rather than wait out their lease.
        const outcomes = yield* Effect.forEach(rows, (row, i) => send(row, keys[i]!, nowMs), { concurrency: "unbounded" }).pipe(
          Effect.onInterrupt(() =>
            shutdown.isStopping() ? claims.release(rows.map((row) => ({ id: row.id, lease: claimedAt }))) : Effect.void
          )
        )
        yield* record(rows.map((row, i) => ({ row, outcome: outcomes[i]!, claimedAt })))
        const delivered = outcomes.filter((o) => o._tag === "Answered" && o.status >= 200 && o.status < 300).length
        return { claimed: rows.length, delivered, failed: rows.length - delivered }
      })

    /**
     * Takes rows whose lease expired (30 s in delivering, or their holder's heartbeat lapsed)
     * and delivers them again.
     */
    const reclaimExpired = Effect.fn("Dispatcher.reclaimExpired")(function*(batchSize: number = 100) {
      const dead = yield* holder.dead.pipe(Effect.orDie)
      const claimedAt = new Date(yield* Clock.currentTimeMillis)
      const rows = yield* claims.claimExpired(claimedAt, batchSize, dead)
      return yield* deliver(rows, claimedAt)
    })

    /**
     * The lease reclaimer of a worker: as `reclaimExpired`, but with a pump running in this
     * process the rows taken join its window (free slots only), are POSTed there and recorded
     * by its recorders, so the next look for dead holders does not wait for these POSTs.
     * Returns how many rows it took.
     */
    const takeOver = Effect.fn("Dispatcher.takeOver")(function*(batchSize: number = 100) {
      const direct = wakeup.direct()
      if (direct === undefined) return (yield* reclaimExpired(batchSize)).claimed
      const dead = yield* holder.dead.pipe(Effect.orDie)
      const reserved = direct.reserve(batchSize)
      if (reserved === 0) return 0
      const claimedAt = new Date(yield* Clock.currentTimeMillis)
      const rows = yield* claims.claimExpired(claimedAt, reserved, dead).pipe(
        // A claim that did not complete gives its slots back.
        Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : direct.start([], claimedAt, reserved))
      )
      yield* direct.start(rows, claimedAt, reserved)
      return rows.length
    })

    /** The continuous pipeline of a worker process (pump.ts); scoped, it runs until its scope closes. */
    const pump = (options: PumpOptions = {}) =>
      runPump({ wakeup, transport, shutdown, ...claims, ...requests, record }, options)

    return { reclaimExpired, takeOver, pump } as const
  })
}) {}
