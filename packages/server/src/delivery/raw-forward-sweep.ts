import { Duration, Effect, Layer, Schedule } from "effect"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "../jobs/shutdown.js"
import { DeliveryHolder } from "./holder.js"
import { RawForward } from "./raw-forward.js"
import { awaitPulse } from "./wakeup.js"

/*
 * New rows are attempted inline right after their commit, or wake this loop
 * through the in-process pulse and LISTEN/NOTIFY; the 10 s tick is only the
 * recovery path (due retries, rows whose 2-minute lease expired with a hung worker).
 * A dead worker's rows are made due, and this loop woken, by the take-over loop.
 */
const SWEEP_INTERVAL = Duration.seconds(10)

/**
 * The raw-forward sweep and the take-over of dead holders' rows (every sixth of
 * DELIVERY_LEASE_MS, holder.ts) as scoped fibers (registered only where workers run);
 * each backs off while the database is unreachable.
 */
export const RawForwardSweepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const rawForward = yield* RawForward
  const holder = yield* DeliveryHolder
  const { fork, work } = yield* Shutdown
  const outage = outageWatch("raw-forward sweep")
  const tick = Effect.gen(function*() {
    const pulse = rawForward.pulse.current
    yield* outage.retrying(work(rawForward.sweepOnce()))
    yield* awaitPulse(rawForward.pulse, pulse, SWEEP_INTERVAL)
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.logError("raw-forward sweep failed", cause).pipe(Effect.zipRight(Effect.sleep(Duration.seconds(1))))
    )
  )
  yield* fork(Effect.forever(tick))

  const takeOver = outageWatch("raw-forward take-over")
  yield* fork(
    takeOver.retrying(work(rawForward.takeOverDead)).pipe(
      Effect.catchAllCause((cause) => Effect.logError("raw-forward take-over failed; retrying", cause)),
      Effect.repeat(Schedule.spaced(holder.checkEvery))
    )
  )
})).pipe(Layer.provide(RawForward.Default), Layer.provide(DeliveryHolder.Default))
