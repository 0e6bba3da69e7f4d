import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, TestClock } from "effect"
import { registry } from "../../src/telemetry/metrics.js"
import { makeThrottle, throttleSender } from "../../src/upstream/throttle.js"
import { parseExposition, total } from "./support.js"

const read = Effect.map(Effect.promise(() => registry.metrics()), parseExposition)

describe("throttle metrics", () => {
  it.effect("a send that waits for its slot counts a wait and its time; one refused counts a refusal", () =>
    Effect.gen(function*() {
      const before = yield* read
      const throttle = yield* makeThrottle({ maxWait: Duration.millis(100) })
      const sender = throttleSender({ kind: "chat", id: 1, phone_number_id: "106540352241" })
      // At 10/s: the first goes at once, the second waits 100 ms, the third is 200 ms away (refused).
      const fiber = yield* Effect.forEach([1, 2, 3], () => Effect.either(throttle.acquire(sender, 10)), { concurrency: "unbounded" })
        .pipe(Effect.fork)
      yield* TestClock.adjust(Duration.seconds(1))
      const results = yield* Fiber.join(fiber)
      expect(results.map(Either.isRight)).toEqual([true, true, false])
      const after = yield* read
      const delta = (name: string) => total(after, name, { store: "local" }) - total(before, name, { store: "local" })
      expect(delta("platform_upstream_throttle_waits_total")).toBe(1)
      expect(delta("platform_upstream_throttle_wait_seconds_sum")).toBeCloseTo(0.1, 5)
      expect(delta("platform_upstream_throttle_refusals_total")).toBe(1)
    }))
})
