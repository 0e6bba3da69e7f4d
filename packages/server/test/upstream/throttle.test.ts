import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Fiber, TestClock } from "effect"
import { channelRate, makeThrottle } from "../../src/upstream/throttle.js"
import { maxInWindow } from "./windows.js"

const burst = (rate: number, size: number, maxWait: Duration.DurationInput = Duration.seconds(1)) =>
  Effect.gen(function*() {
    const throttle = yield* makeThrottle({ maxWait })
    const fiber = yield* Effect.forEach(
      Array.from({ length: size }, (_, i) => i),
      () => Effect.either(throttle.acquire(7, rate)).pipe(Effect.zip(Clock.currentTimeMillis)),
      { concurrency: "unbounded" }
    ).pipe(Effect.fork)
    yield* TestClock.adjust(Duration.seconds(5))
    const results = yield* Fiber.join(fiber)
    return {
      passed: results.filter(([r]) => Either.isRight(r)).map(([, at]) => at),
      refused: results.flatMap(([r, at]) => Either.isLeft(r) ? [{ error: r.left, at }] : [])
    }
  })

describe("per-channel throttle", () => {
  it.effect.each([
    [80, 200],
    [300, 500],
    [1000, 1050]
  ] as const)("a burst of %i/s × %i is smoothed to the rate in every one-second window", ([rate, size]) =>
    Effect.gen(function*() {
      const { passed } = yield* burst(rate, size)
      expect(passed.length).toBeGreaterThanOrEqual(rate)
      expect(maxInWindow(passed, 1000)).toBeLessThanOrEqual(rate)
      expect(maxInWindow(passed, 100)).toBeLessThanOrEqual(Math.ceil(rate / 10) + 1)
    }))

  it.effect("the part of a burst beyond the bounded wait fails fast with UpstreamThrottled at t=0", () =>
    Effect.gen(function*() {
      const { passed, refused } = yield* burst(80, 200)
      expect(passed).toHaveLength(81)
      expect(Math.max(...passed)).toBeLessThanOrEqual(1000)
      expect(refused).toHaveLength(119)
      expect(refused.every((r) => r.at === 0)).toBe(true)
      expect(refused[0]?.error).toMatchObject({ _tag: "UpstreamThrottled", channel_id: 7, rate_per_second: 80 })
    }))

  it.effect("channels do not share a bucket", () =>
    Effect.gen(function*() {
      const throttle = yield* makeThrottle({ maxWait: Duration.zero })
      expect(Either.isRight(yield* Effect.either(throttle.acquire(1, 1)))).toBe(true)
      expect(Either.isRight(yield* Effect.either(throttle.acquire(2, 1)))).toBe(true)
      expect(Either.isLeft(yield* Effect.either(throttle.acquire(1, 1)))).toBe(true)
    }))

  it.effect("a channel recovers its full rate after a quiet period", () =>
    Effect.gen(function*() {
      const first = yield* burst(80, 81)
      expect(first.refused).toHaveLength(0)
      const throttle = yield* makeThrottle()
      for (let i = 0; i < 81; i++) yield* Effect.fork(throttle.acquire(3, 80))
      yield* TestClock.adjust(Duration.seconds(3))
      expect(Either.isRight(yield* Effect.either(Effect.timeout(throttle.acquire(3, 80), Duration.zero)))).toBe(true)
    }))

  it.each([
    [{ kind: "chat" as const }, 80],
    [{ kind: "chat" as const, throughput_per_second: 1000 }, 1000],
    [{ kind: "social" as const }, 300],
    [{ kind: "social" as const, throughput_per_second: 0 }, 300]
  ])("channelRate(%o) is %i per second", (creds, rate) => {
    expect(channelRate(creds)).toBe(rate)
  })
})
