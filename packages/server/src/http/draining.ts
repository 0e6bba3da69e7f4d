import { Deferred, Effect } from "effect"

/**
 * The server stopping to take requests (SIGTERM): responses that would never end
 * by themselves (the event stream) end then, so the drain waits only for real work.
 * One per server: the HTTP app and the drain share it (the same layer value).
 */
export class Draining extends Effect.Service<Draining>()("@platform/server/Draining", {
  effect: Effect.map(Deferred.make<void>(), (started) => ({
    /** Completes once draining has begun. */
    started: Deferred.await(started),
    /** Whether draining has begun. */
    isDraining: Deferred.isDone(started),
    begin: Deferred.succeed(started, undefined)
  }))
}) {}
