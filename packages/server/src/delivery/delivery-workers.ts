import { INACTIVITY_SWEEP_INTERVAL_SECONDS } from "@platform/shared"
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { AutoPause } from "./auto-pause.js"
import { DeliveryBuffer } from "./buffer.js"
import { Dispatcher } from "./dispatcher.js"
import { EngineSql } from "./engine-sql.js"
import { FanOut } from "./fan-out.js"
import { DeliveryHolder } from "./holder.js"
import { InactivitySweep } from "./inactivity.js"
import { DeliveryTransport } from "./transport.js"
import { awaitPulse, DeliveryWakeup } from "./wakeup.js"
import { Secrets } from "../crypto/secrets.js"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "../jobs/shutdown.js"

export interface DeliveryWorkerOptions {
  /** POSTs in flight per process (one claimer tops the window up; two recorders record). */
  readonly maxInFlight?: number
  readonly dispatchBatch?: number
  readonly fanOutBatch?: number
  /** Recovery sweeps when no wake-up arrives (rows written by a process that did not notify). */
  readonly fanOutSweep?: Duration.DurationInput
  readonly dispatchSweep?: Duration.DurationInput
}

/**
 * A worker's pass that never fails: while the database is unreachable it is tried
 * again with backoff, the outage logged once under `name`; any other failure is logged.
 */
const survive = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
  outageWatch(name).retrying(effect).pipe(Effect.catchAllCause((cause) => Effect.logError(`${name} failed; retrying`, cause)))

/**
 * Fan-out's waits after failures in a row: 250 ms, doubling up to 10 s. A
 * statement that keeps failing is retried, not hammered by a loop that never
 * waits (a database that is unreachable is waited out on OUTAGE_BACKOFF first).
 */
export const FAN_OUT_RETRY = Schedule.exponential(Duration.millis(250)).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.seconds(10)))
)

/**
 * The delivery workers, each a scoped fiber: fan-out, the dispatch pipeline
 * (`Dispatcher.pump`: one claimer, up to `maxInFlight` POSTs, two recorders), the lease reclaimer
 * (every sixth of DELIVERY_LEASE_MS: the rows of dead holders and of ones hung for 30 s), the buffer
 * assembler, the prune of auto-pause's old attempt counts and the inactivity sweep.
 * Loops wake on pulses (this process) and LISTEN (other processes) and fall
 * back to short sweeps; while the database is unreachable each backs off and logs
 * the outage once (db/outage.ts); all waiting goes through the Effect clock. On a stop
 * (jobs/shutdown.ts) each finishes the pass it is in, within the grace period, and
 * starts no other (each attempt of a pass is one unit of that work, not the waits between).
 */
export const deliveryWorkers = (options: DeliveryWorkerOptions = {}) =>
  Effect.gen(function*() {
    const wakeup = yield* DeliveryWakeup
    const fanOut = yield* FanOut
    const dispatcher = yield* Dispatcher
    const buffer = yield* DeliveryBuffer
    const inactivity = yield* InactivitySweep
    const autoPause = yield* AutoPause
    const holder = yield* DeliveryHolder
    const { fork, work } = yield* Shutdown
    const dispatchBatch = options.dispatchBatch ?? 100
    const fanOutBatch = options.fanOutBatch ?? 500
    const fanOutSweep = options.fanOutSweep ?? Duration.millis(250)
    const dispatchSweep = options.dispatchSweep ?? Duration.seconds(1)

    const fanOutOutage = outageWatch("fan-out")
    yield* fork(Effect.forever(Effect.gen(function*() {
      const pulse = wakeup.events.current
      const n = yield* fanOutOutage.retrying(work(fanOut.drain(fanOutBatch))).pipe(
        Effect.sandbox,
        Effect.tapError((cause) => Effect.logError("fan-out failed; retrying", cause)),
        Effect.retry(FAN_OUT_RETRY)
      )
      if (n === 0) yield* awaitPulse(wakeup.events, pulse, fanOutSweep)
    })))

    yield* dispatcher.pump({
      batchSize: dispatchBatch,
      sweep: dispatchSweep,
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight })
    })

    yield* fork(
      survive("lease reclaimer", work(dispatcher.takeOver(dispatchBatch))).pipe(
        Effect.repeat(Schedule.spaced(holder.checkEvery))
      )
    )

    yield* fork(Effect.forever(Effect.gen(function*() {
      const pulse = wakeup.buffer.current
      const r = yield* survive("buffer", work(buffer.runOnce()))
      const now = yield* Clock.currentTimeMillis
      const wait = r?.nextDueAt == null ? 1000 : Math.max(0, Math.min(1000, r.nextDueAt - now))
      yield* awaitPulse(wakeup.buffer, pulse, Duration.millis(wait))
    })))

    yield* fork(
      survive("attempt counts prune", work(Effect.flatMap(Clock.currentTimeMillis, (now) => autoPause.prune(new Date(now))))).pipe(
        Effect.repeat(Schedule.spaced(Duration.minutes(1)))
      )
    )

    yield* fork(
      survive("inactivity sweep", work(inactivity.runOnce())).pipe(
        Effect.repeat(Schedule.spaced(Duration.seconds(INACTIVITY_SWEEP_INTERVAL_SECONDS)))
      )
    )
  })

/** The services of the delivery engine (without the workers). */
export const DeliveryEngineLive = Layer.mergeAll(
  FanOut.Default,
  Dispatcher.Default,
  DeliveryBuffer.Default,
  InactivitySweep.Default
).pipe(
  Layer.provideMerge(AutoPause.Default),
  Layer.provideMerge(EngineSql.Default),
  Layer.provideMerge(DeliveryWakeup.Default),
  Layer.provideMerge(DeliveryTransport.Live),
  Layer.provideMerge(Secrets.Default),
  Layer.provideMerge(DeliveryHolder.Default),
  Layer.provideMerge(Shutdown.Default)
)

/** The workers of the delivery engine with their services; app.ts runs them only where `runsWorkers` (ROLE all or worker). */
export const DeliveryWorkersLive = Layer.scopedDiscard(deliveryWorkers()).pipe(Layer.provide(DeliveryEngineLive))
