import { Effect, type Schedule, SubscriptionRef } from "effect"
import { Shutdown } from "./shutdown.js"

/**
 * A worker's pass repeated on `schedule` (Effect clock): a pass at once, then one per
 * recurrence. A failed pass is logged under `name` and the worker goes on; `ticks`, when
 * given, counts finished passes (tests wait on it instead of on time). A pass is the
 * stop's unit of work (shutdown.ts): once the process stops, a running one finishes and
 * no other starts.
 */
export const periodic = <A, E, R, Out, RS>(
  name: string,
  pass: Effect.Effect<A, E, R>,
  schedule: Schedule.Schedule<Out, unknown, RS>,
  ticks?: SubscriptionRef.SubscriptionRef<number>
) =>
  Effect.flatMap(Shutdown, ({ work }) =>
    work(pass).pipe(
      Effect.catchAllCause((cause) => Effect.logError(`${name} failed`, cause)),
      Effect.zipRight(ticks === undefined ? Effect.void : SubscriptionRef.update(ticks, (n) => n + 1)),
      Effect.repeat(schedule),
      Effect.asVoid
    ))
