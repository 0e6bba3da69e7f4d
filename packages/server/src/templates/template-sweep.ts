import { Duration, Effect, Layer, Schedule, type SubscriptionRef } from "effect"
import { Templates } from "./templates.js"
import { periodic } from "../jobs/periodic.js"
import { Shutdown } from "../jobs/shutdown.js"

/*
 * Only a PATCH whose process died between marking the row pending and writing Meta's
 * answer, or a POST whose process died between its insert and its final write, leaves
 * work here, and either is settled no sooner than 2 minutes after it started
 * (TEMPLATE_EDIT_MS, SUBMITTING_MS); a 30 s tick adds little to that.
 */
export const TEMPLATE_SWEEP_INTERVAL = Duration.seconds(30)

/**
 * The sweep: a pass at once, then one every 30 s on the Effect clock. A failed pass is
 * logged and the sweep goes on; `ticks` counts finished passes (tests wait on it).
 */
export const templateSweep = (ticks?: SubscriptionRef.SubscriptionRef<number>) =>
  Effect.flatMap(Templates, (templates) =>
    periodic("template sweep", templates.sweepStale(), Schedule.spaced(TEMPLATE_SWEEP_INTERVAL), ticks))

/** Settles template edits and creates whose process died mid-call (registered only where workers run). */
export const TemplateSweepLive = Layer.scopedDiscard(Effect.flatMap(Shutdown, (shutdown) => shutdown.fork(templateSweep()))).pipe(
  Layer.provide(Templates.Default)
)
