import { Duration, Effect, Layer } from "effect"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "../jobs/shutdown.js"
import { ContactWipe } from "./contact-wipe.js"

// A deleted contact is hidden from every read at once, so the wipe need not be
// prompt; a short poll bounds how long its rows linger.
const SWEEP_INTERVAL = Duration.seconds(5)

/**
 * Wipes contacts marked deleted, in bounded batches (registered only where workers run);
 * backs off while the database is unreachable.
 */
export const ContactWipeSweepLive = Layer.scopedDiscard(Effect.gen(function*() {
  const wipe = yield* ContactWipe
  const { fork, work } = yield* Shutdown
  const tick = outageWatch("contact wipe").retrying(work(wipe.runOnce())).pipe(
    Effect.zipRight(Effect.sleep(SWEEP_INTERVAL)),
    Effect.catchAllCause((cause) =>
      Effect.logError("contact wipe failed", cause).pipe(Effect.zipRight(Effect.sleep(SWEEP_INTERVAL)))
    )
  )
  yield* fork(Effect.forever(tick))
})).pipe(Layer.provide(ContactWipe.Default))
