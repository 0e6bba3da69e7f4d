import { Duration, Effect, Layer } from "effect"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "../jobs/shutdown.js"
import { ParkedStatuses } from "./parked.js"

const SWEEP_INTERVAL = Duration.seconds(15)

/**
 * Applies late-matched parked status callbacks and drops expired ones (registered only
 * where workers run); backs off while the database is unreachable.
 */
export const ParkedStatusSweepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const parked = yield* ParkedStatuses
  const { fork, work } = yield* Shutdown
  const tick = outageWatch("parked-status sweep").retrying(work(parked.sweepOnce)).pipe(
    Effect.zipRight(Effect.sleep(SWEEP_INTERVAL)),
    Effect.catchAllCause((cause) =>
      Effect.logError("parked-status sweep failed", cause).pipe(Effect.zipRight(Effect.sleep(SWEEP_INTERVAL)))
    )
  )
  yield* fork(Effect.forever(tick))
})).pipe(Layer.provide(ParkedStatuses.Default))
