import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Layer, Ref, Scope } from "effect"
import { describe } from "vitest"
import { AppConfig } from "../../src/config.js"
import { Shutdown } from "../../src/jobs/shutdown.js"

const GRACE_MS = 400

const WithShutdown = Shutdown.Default.pipe(Layer.provide(AppConfig.layerWith({ SHUTDOWN_GRACE_MS: String(GRACE_MS) })))

/**
 * A worker loop forked with `fork` in its own scope: each pass is `work` that takes
 * `passMs` (real time) and is counted when it ends; `started` says a pass began.
 */
const worker = (passMs: number) =>
  Effect.gen(function*() {
    const shutdown = yield* Shutdown
    const scope = yield* Scope.make()
    const finished = yield* Ref.make(0)
    const started = yield* Deferred.make<void>()
    const pass = Effect.zipRight(Deferred.succeed(started, undefined), Effect.promise(() => new Promise((r) => setTimeout(r, passMs))))
      .pipe(Effect.zipRight(Ref.update(finished, (n) => n + 1)))
    yield* shutdown.fork(Effect.forever(shutdown.work(pass))).pipe(Scope.extend(scope))
    yield* Deferred.await(started)
    return { scope, finished, shutdown }
  })

const closedIn = (scope: Scope.CloseableScope) =>
  Effect.gen(function*() {
    const start = Date.now()
    yield* Scope.close(scope, Exit.void)
    return Date.now() - start
  })

describe("Shutdown", () => {
  it.live("closed during a stop, a worker finishes the pass in flight and starts no other", () =>
    Effect.gen(function*() {
      const { finished, scope, shutdown } = yield* worker(150)
      yield* shutdown.begin
      const took = yield* closedIn(scope)
      expect(yield* Ref.get(finished)).toBe(1)
      expect(took).toBeLessThan(GRACE_MS)
      // Nothing starts once the stop has begun.
      const late = yield* Ref.make(false)
      yield* shutdown.work(Ref.set(late, true)).pipe(Effect.timeout("50 millis"), Effect.ignore)
      expect(yield* Ref.get(late)).toBe(false)
    }).pipe(Effect.provide(WithShutdown)))

  it.live("a pass still running at the end of the grace period is interrupted then", () =>
    Effect.gen(function*() {
      const { finished, scope, shutdown } = yield* worker(5_000)
      yield* shutdown.begin
      const took = yield* closedIn(scope)
      expect(yield* Ref.get(finished)).toBe(0)
      expect(took).toBeGreaterThanOrEqual(GRACE_MS - 50)
      expect(took).toBeLessThan(GRACE_MS + 1_000)
    }).pipe(Effect.provide(WithShutdown)))

  it.live("a scope closed without a stop (a test's workers, a failed start) interrupts its worker at once", () =>
    Effect.gen(function*() {
      const { finished, scope, shutdown } = yield* worker(5_000)
      const took = yield* closedIn(scope)
      expect(yield* Ref.get(finished)).toBe(0)
      expect(took).toBeLessThan(GRACE_MS)
      expect(shutdown.isStopping()).toBe(false)
    }).pipe(Effect.provide(WithShutdown)))
})
