import { Duration, Effect, Layer } from "effect"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "../jobs/shutdown.js"
import { RawForward } from "./raw-forward.js"
import { awaitPulse } from "./wakeup.js"

/*
 * New rows are attempted inline right after their commit, or wake this loop
 * through the in-process pulse and LISTEN/NOTIFY; the 10 s tick is only the
 * recovery path (due retries, rows whose lease expired with a dead worker).
 */
const SWEEP_INTERVAL = Duration.seconds(10)

/**
 * The raw-forward sweep as a scoped fiber (registered only where workers run); backs off
 * while the database is unreachable.
 */
export const RawForwardSweepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const rawForward = yield* RawForward
  const { fork, work } = yield* Shutdown
  const outage = outageWatch("raw-forward sweep")
  const tick = Effect.gen(function*() {
    const pulse = rawForward.pulse.current
    yield* outage.retrying(work(rawForward.sweepOnce()))
    yield* awaitPulse(pulse, SWEEP_INTERVAL)
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.logError("raw-forward sweep failed", cause).pipe(Effect.zipRight(Effect.sleep(Duration.seconds(1))))
    )
  )
  yield* fork(Effect.forever(tick))
})).pipe(Layer.provide(RawForward.Default))
