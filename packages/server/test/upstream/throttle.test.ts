import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Fiber, TestClock } from "effect"
import { channelRate, makeThrottle, throttleSender } from "../../src/upstream/throttle.js"
import { maxInWindow } from "./windows.js"

/** Channel row `id` sending from its own phone number. */
const chat = (id: number, phoneNumberId = `10654035224${id}`) => throttleSender({ kind: "chat", id, phone_number_id: phoneNumberId })

const burst = (rate: number, size: number, maxWait: Duration.DurationInput = Duration.seconds(1)) =>
  Effect.gen(function*() {
    const throttle = yield* makeThrottle({ maxWait })
    const fiber = yield* Effect.forEach(
      Array.from({ length: size }, (_, i) => i),
      () => Effect.either(throttle.acquire(chat(7), rate)).pipe(Effect.zip(Clock.currentTimeMillis)),
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
      expect(Either.isRight(yield* Effect.either(throttle.acquire(chat(1), 1)))).toBe(true)
      expect(Either.isRight(yield* Effect.either(throttle.acquire(chat(2), 1)))).toBe(true)
      expect(Either.isLeft(yield* Effect.either(throttle.acquire(chat(1), 1)))).toBe(true)
    }))

  it.effect("a channel recovers its full rate after a quiet period", () =>
    Effect.gen(function*() {
      const first = yield* burst(80, 81)
      expect(first.refused).toHaveLength(0)
      const throttle = yield* makeThrottle()
      for (let i = 0; i < 81; i++) yield* Effect.fork(throttle.acquire(chat(3), 80))
      yield* TestClock.adjust(Duration.seconds(3))
      expect(Either.isRight(yield* Effect.either(Effect.timeout(throttle.acquire(chat(3), 80), Duration.zero)))).toBe(true)
    }))

  const socialAccount = (id: number, socialId: string) => throttleSender({ kind: "social", id, social_id: socialId })

  it.effect.each([
    ["two channel rows on one phone number share its schedule", chat(1, "106540352242922"), chat(2, "106540352242922"), true],
    ["two channel rows on one social account share its schedule", socialAccount(1, "17841400000000001"), socialAccount(2, "17841400000000001"), true],
    ["two channel rows on different phone numbers do not share a schedule", chat(1, "106540352242922"), chat(2, "106540352242923"), false],
    ["a phone number and a social account with the same digits do not share a schedule", chat(1, "106540352242922"), socialAccount(2, "106540352242922"), false]
  ] as const)("%s", ([, first, second, shared]) =>
    Effect.gen(function*() {
      const throttle = yield* makeThrottle({ maxWait: Duration.zero })
      yield* throttle.acquire(first, 1)
      const next = yield* Effect.either(throttle.acquire(second, 1))
      if (shared) expect(next).toMatchObject({ _tag: "Left", left: { _tag: "UpstreamThrottled", channel_id: second.channelId, rate_per_second: 1 } })
      else expect(next._tag).toBe("Right")
    }))

  it.each([
    ["chat", "chat:106540352242922", { kind: "chat" as const, id: 7, phone_number_id: "106540352242922", social_id: "17841400000000001" }],
    ["social", "social:17841400000000001", { kind: "social" as const, id: 7, social_id: "17841400000000001" }]
  ])("the schedule of a %s channel row is keyed by %s, Meta's sender id, not the row id", (_, key, creds) => {
    expect(throttleSender(creds)).toEqual({ key, channelId: 7 })
  })

  it.each([
    [{ kind: "chat" as const }, 80],
    [{ kind: "chat" as const, throughput_per_second: 1000 }, 1000],
    [{ kind: "social" as const }, 300],
    [{ kind: "social" as const, throughput_per_second: 0 }, 300]
  ])("channelRate(%o) is %i per second", (creds, rate) => {
    expect(channelRate(creds)).toBe(rate)
  })
})
