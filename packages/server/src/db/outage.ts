import { Cause, Clock, Duration, Effect, Schedule } from "effect"
import { connectionFaultMessage, hasConnectionFault } from "./connection-fault.js"

/**
 * Waits between attempts while the database is unreachable: 0.2 s, doubling up to
 * 5 s (a restart is seen again within seconds), each wait ±20% so that the workers
 * of many processes do not all come back in the same instant.
 */
export const OUTAGE_BACKOFF = Schedule.exponential(Duration.millis(200)).pipe(
  Schedule.union(Schedule.spaced(Duration.seconds(5))),
  Schedule.jittered
)

/** One worker's view of database outages (see `outageWatch`). */
export interface OutageWatch {
  /**
   * Runs `effect`, and while it fails (or dies) because the database is
   * unreachable runs it again on OUTAGE_BACKOFF (as long as `options.while` holds,
   * asked after each failed attempt); any other outcome is the caller's, as it was.
   * Several fibers of a worker may share one watch.
   */
  readonly retrying: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    options?: { readonly while?: () => boolean }
  ) => Effect.Effect<A, E, R>
  /** After a failed attempt of the caller's own loop: notes it when it was an outage (logged once). */
  readonly failed: (cause: Cause.Cause<unknown>) => Effect.Effect<void>
  /** After an attempt that reached the database: ends an outage, with its summary line. */
  readonly reached: Effect.Effect<void>
}

/**
 * A worker's outages, logged once each: "database unreachable; <worker> backing off"
 * at the first failed attempt (with the driver's words), nothing while it lasts, and
 * "database reachable again after N s; M attempts failed" at the first attempt that
 * reaches the database again, instead of a stack trace per attempt.
 */
export const outageWatch = (worker: string): OutageWatch => {
  let since: number | undefined
  let attempts = 0

  const failed = (cause: Cause.Cause<unknown>) =>
    hasConnectionFault(cause)
      ? Effect.flatMap(Clock.currentTimeMillis, (now) => {
        attempts++
        if (since !== undefined) return Effect.void
        since = now
        return Effect.logWarning(`database unreachable; ${worker} backing off`).pipe(
          Effect.annotateLogs({ worker, error: connectionFaultMessage(cause) ?? "connection lost" })
        )
      })
      : Effect.void

  const reached = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (since === undefined) return Effect.void
    const seconds = Math.round((now - since) / 100) / 10
    const failures = attempts
    since = undefined
    attempts = 0
    return Effect.logInfo(`database reachable again after ${seconds} s; ${failures} attempts failed`).pipe(
      Effect.annotateLogs({ worker })
    )
  })

  const retrying = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    options: { readonly while?: () => boolean } = {}
  ): Effect.Effect<A, E, R> =>
    effect.pipe(
      Effect.sandbox,
      Effect.tapBoth({
        onFailure: (cause) => hasConnectionFault(cause) ? failed(cause) : Cause.isInterruptedOnly(cause) ? Effect.void : reached,
        onSuccess: () => reached
      }),
      Effect.retry({
        schedule: OUTAGE_BACKOFF,
        while: (cause) => hasConnectionFault(cause) && (options.while?.() ?? true)
      }),
      Effect.unsandbox
    )

  return { retrying, failed, reached }
}
