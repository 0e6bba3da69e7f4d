import { Deferred, Effect, type Scope } from "effect"

/**
 * Start-up work that `/readyz` waits for (the first-run demo account: a client that
 * polls readiness and then uses the printed key must find it). `/healthz` never waits.
 * Open unless something holds it; a holder takes its hold before the server listens.
 * It also tells start-up work when the server answers requests (the demo connects its
 * channels through the sandbox, over HTTP). One per server: the HTTP app, the listener
 * and the holders share it (the same layer value).
 */
export class Readiness extends Effect.Service<Readiness>()("@platform/server/Readiness", {
  effect: Effect.gen(function*() {
    const open = yield* Effect.makeLatch(true)
    const serving = yield* Deferred.make<void>()
    let holds = 0
    return {
      /** Completes once the HTTP app answers requests. */
      serving: Deferred.await(serving),
      /** Said by the listener (server.ts) once the app is attached. */
      served: Deferred.succeed(serving, undefined),
      /** Completes once no start-up work is pending. */
      ready: open.await,
      /** Holds readiness until `release` runs (or the scope closes, whichever is first). */
      hold: Effect.gen(function*() {
        let held = true
        const release = Effect.sync(() => {
          if (!held) return
          held = false
          if (--holds === 0) open.unsafeOpen()
        })
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            if (holds++ === 0) open.unsafeClose()
          }),
          () => release
        )
        return release
      }) satisfies Effect.Effect<Effect.Effect<void>, never, Scope.Scope>
    } as const
  })
}) {}
