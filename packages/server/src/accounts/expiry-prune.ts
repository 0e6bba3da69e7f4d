import { Duration, Effect, Layer, Schedule, type SubscriptionRef } from "effect"
import { ExpiredRows } from "./expired-rows.js"
import { periodic } from "../jobs/periodic.js"
import { Shutdown } from "../jobs/shutdown.js"

/*
 * Nothing waits on the prune: an expired Idempotency-Key row is already free for a new
 * claim and an expired session already refused, so a row outliving its expiry by up to
 * 10 minutes costs only its disk space. Ten minutes keeps each pass small (at most what
 * expired in that time, usually a single batch) while a pass costs one index lookup per
 * table when there is nothing to delete.
 */
export const EXPIRY_PRUNE_INTERVAL = Duration.minutes(10)

/**
 * The prune: a pass at once, then one every 10 minutes on the Effect clock. A failed pass
 * is logged and the prune goes on; `ticks` counts finished passes (tests wait on it).
 */
export const expiryPrune = (ticks?: SubscriptionRef.SubscriptionRef<number>) =>
  Effect.flatMap(ExpiredRows, (expired) =>
    periodic("expired rows prune", expired.pruneOnce, Schedule.spaced(EXPIRY_PRUNE_INTERVAL), ticks))

/** Deletes expired Idempotency-Key replies and sessions (registered only where workers run). */
export const ExpiryPruneLive = Layer.scopedDiscard(Effect.flatMap(Shutdown, (shutdown) => shutdown.fork(expiryPrune()))).pipe(
  Layer.provide(ExpiredRows.Default)
)
