import { Clock, Effect, Option } from "effect"

/** After a failed command, callers go without the store for this long (no timeout per call). */
const REDIS_BACKOFF_MS = 1_000

/**
 * Calls to a shared store that its caller can do without: a call that fails or times out is
 * `None` (the caller falls back to its in-process state), and so is every call for
 * REDIS_BACKOFF_MS after a failure, without asking the store. The outage is logged once when
 * it starts and once when the store answers again, not per call. The backoff is timed by
 * Effect's Clock (the real one in production) so that tests can step it.
 */
export const makeGuardedCall = (messages: { readonly unavailable: string; readonly available: string }) => {
  let failing = false
  let skipUntil = 0
  return <A>(run: () => Promise<A>): Effect.Effect<Option.Option<A>> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now < skipUntil
        ? Effect.succeedNone
        : Effect.tryPromise(run).pipe(
          Effect.tap(() => {
            if (!failing) return Effect.void
            failing = false
            return Effect.logInfo(messages.available)
          }),
          Effect.map(Option.some),
          Effect.catchAll((error) =>
            Effect.flatMap(Clock.currentTimeMillis, (failedAt) => {
              skipUntil = failedAt + REDIS_BACKOFF_MS
              if (failing) return Effect.succeedNone
              failing = true
              return Effect.as(Effect.logWarning(messages.unavailable, String(error.cause)), Option.none())
            })
          )
        ))
}
