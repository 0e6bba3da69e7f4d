import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { AppConfig } from "../config.js"

/** Resolves after `ms` of wall time: a stop is bounded in real seconds, whatever clock a test runs its workers on. */
const wallSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/**
 * The process stopping (SIGTERM or SIGINT, DESIGN §9). `begin` (the app's outermost
 * finalizer, `Shutdown.beginOnClose`, so before any other) fixes ONE deadline,
 * SHUTDOWN_GRACE_MS away, for the HTTP drain and every worker. From then on no worker
 * starts new work (`work`), what is in flight has until the deadline to finish, and what
 * is still running then is interrupted, its claims handed back or left to their lease.
 * A scope closed without a stop (a test's workers, a start that failed) is interrupted
 * at once, as any Effect scope. One per process: every layer that needs it names
 * `Shutdown.Default`, one layer value, built once.
 */
export class Shutdown extends Effect.Service<Shutdown>()("@platform/server/Shutdown", {
  effect: Effect.gen(function*() {
    const { shutdownGraceMs } = yield* AppConfig
    const begun = yield* Deferred.make<void>()
    // Open while no `work` runs.
    const idle = yield* Effect.makeLatch(true)
    let stopping = false
    let deadline = Number.POSITIVE_INFINITY
    let busy = 0

    /** Starts the stop (once; later calls do nothing): new work is refused, the grace period runs. */
    const begin = Effect.suspend(() => {
      if (stopping) return Effect.void
      stopping = true
      deadline = Date.now() + shutdownGraceMs
      return Effect.zipRight(
        Deferred.succeed(begun, undefined),
        Effect.logInfo(`stopping: new work refused; what is in flight has ${shutdownGraceMs} ms to finish`)
      )
    })

    /**
     * During a stop, `effect` until the deadline: `Some` of its result, or `None` when the
     * deadline came first and it was interrupted. Without a stop, `None` at once (nothing
     * waits). Interruptible even in a finalizer (where it runs): a race waits for its
     * loser's interruption, which an uninterruptible loser would make wait for its end.
     */
    const untilDeadline = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() =>
        stopping
          ? Effect.interruptible(Effect.raceFirst(
            Effect.asSome(effect),
            Effect.as(wallSleep(Math.max(0, deadline - Date.now())), Option.none<A>())
          ))
          : Effect.succeedNone
      )

    /**
     * A unit of a worker's work (a pass, a batch): counted as in flight while it runs, so a
     * stop waits for it. Once the stop has begun it does not start: the worker waits to be
     * interrupted instead, as it would between passes.
     */
    const work = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() =>
        stopping ? Effect.never : Effect.acquireUseRelease(
          Effect.sync(() => {
            if (busy++ === 0) idle.unsafeClose()
          }),
          () => effect,
          () =>
            Effect.sync(() => {
              if (--busy === 0) idle.unsafeOpen()
            })
        )
      )

    /**
     * Forks a worker loop into the scope. Closed during a stop, the loop is interrupted as
     * soon as no `work` is in flight (at once when it is between passes), or at the deadline.
     */
    const fork = <A, E, R>(loop: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkScoped(loop)
        // Added after the fork, so it runs before the fork's own finalizer interrupts the loop.
        yield* Effect.addFinalizer(() => untilDeadline(Effect.raceFirst(Fiber.await(fiber), idle.await)))
        return fiber
      })

    return {
      graceMs: shutdownGraceMs,
      begin,
      /** Completes once the stop has begun. */
      stopped: Deferred.await(begun),
      /** Whether the stop has begun (for loops outside Effect: the delivery pump's POSTs). */
      isStopping: (): boolean => stopping,
      untilDeadline,
      work,
      fork
    } as const
  })
}) {
  /**
   * Begins the stop when its scope closes. The app builds it last (over everything else),
   * so its finalizer runs first: every worker stops claiming before any of them is closed.
   */
  static readonly beginOnClose = Layer.scopedDiscard(
    Effect.flatMap(Shutdown, (shutdown) => Effect.addFinalizer(() => shutdown.begin))
  )
}
