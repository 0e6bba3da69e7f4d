import { Effect, type Schedule, SubscriptionRef } from "effect"
import { outageWatch } from "../db/outage.js"
import { Shutdown } from "./shutdown.js"

/**
 * A worker's pass repeated on `schedule` (Effect clock): a pass at once, then one per
 * recurrence. A pass that cannot reach the database is tried again with backoff, the
 * outage logged once (see `outageWatch`); a pass failed otherwise is logged under `name`
 * and the worker goes on; `ticks`, when given, counts finished passes (tests wait on it
 * instead of on time). A pass (each attempt of it) is the stop's unit of work
 * (shutdown.ts): once the process stops, a running one finishes and no other starts.
 */
export const periodic = <A, E, R, Out, RS>(
  name: string,
  pass: Effect.Effect<A, E, R>,
  schedule: Schedule.Schedule<Out, unknown, RS>,
  ticks?: SubscriptionRef.SubscriptionRef<number>
) =>
  Effect.flatMap(Shutdown, ({ work }) =>
    outageWatch(name).retrying(work(pass)).pipe(
      Effect.catchAllCause((cause) => Effect.logError(`${name} failed`, cause)),
      Effect.zipRight(ticks === undefined ? Effect.void : SubscriptionRef.update(ticks, (n) => n + 1)),
      Effect.repeat(schedule),
      Effect.asVoid
    ))
