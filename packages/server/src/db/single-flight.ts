import { Deferred, Effect, FiberId } from "effect"

/**
 * Concurrent misses of one key share one lookup: the first runs it, those arriving
 * while it runs wait for its answer (or its defect). A cache in front of a query
 * otherwise answers an expiry under load with one query per request in flight at
 * that moment (measured under bench:send: 32 connections made about 30 queries of
 * one API key per expiry). The lookup runs to the end once started, so a waiter
 * never hangs on a leader that was interrupted. `forget` makes later callers start
 * a lookup of their own (an invalidation: nobody arriving after it gets an answer
 * read before it).
 */
export const makeSingleFlight = <K, A, E>() => {
  const flights = new Map<K, Deferred.Deferred<A, E>>()
  const run = <R>(key: K, lookup: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const pending = flights.get(key)
      if (pending !== undefined) return Deferred.await(pending)
      const flight = Deferred.unsafeMake<A, E>(FiberId.none)
      flights.set(key, flight)
      // All of it uninterruptible: the waiters get the lookup's own answer, never the leader's interruption.
      return Effect.uninterruptible(Effect.flatMap(Effect.exit(lookup), (exit) => {
        if (flights.get(key) === flight) flights.delete(key)
        return Effect.zipRight(Deferred.done(flight, exit), exit)
      }))
    })
  const forget = (key?: K) => {
    if (key === undefined) flights.clear()
    else flights.delete(key)
  }
  return { run, forget }
}
