import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { awaitAny, awaitPulse, Pulse } from "../../src/delivery/wakeup.js"

describe("Pulse waits", () => {
  it.effect("a wait ends when its pulse fires after the mark, and at once when it already has", () =>
    Effect.gen(function*() {
      const a = new Pulse()
      const b = new Pulse()
      const markA = a.current
      const markB = b.current
      const waiting = yield* Effect.fork(awaitAny([[a, markA], [b, markB]]))
      yield* Effect.yieldNow()
      expect(a.waiting + b.waiting).toBe(2)
      b.fire()
      expect(yield* Fiber.join(waiting)).toBe(1)
      expect(a.waiting + b.waiting).toBe(0)
      // Fired between the mark and the wait: not lost.
      expect(yield* awaitAny([[a, markA], [b, markB]])).toBe(1)
      expect(a.waiting + b.waiting).toBe(0)
    }))

  it.effect("waits that time out or are interrupted leave nothing registered on a pulse that never fires", () =>
    Effect.gen(function*() {
      const quiet = new Pulse()
      const stop = new Pulse()
      for (let i = 0; i < 1_000; i++) {
        const timedOut = yield* Effect.fork(awaitPulse(quiet, quiet.current, "250 millis"))
        yield* TestClock.adjust("250 millis")
        yield* Fiber.join(timedOut)
        const raced = yield* Effect.fork(awaitAny([[quiet, quiet.current], [stop, stop.current]]))
        yield* Effect.yieldNow()
        yield* Fiber.interrupt(raced)
      }
      expect(quiet.waiting).toBe(0)
      expect(stop.waiting).toBe(0)
      // The pulse still wakes a new wait.
      const last = yield* Effect.fork(awaitAny([[quiet, quiet.current], [stop, stop.current]]))
      yield* Effect.yieldNow()
      stop.fire()
      expect(yield* Fiber.join(last)).toBe(1)
    }))
})
