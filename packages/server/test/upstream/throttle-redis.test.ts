import { FetchHttpClient } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Context, Duration, Effect, Either, Fiber, Layer, Logger, Redacted, TestClock } from "effect"
import { Redis } from "ioredis"
import { createServer } from "node:net"
import { AppConfig } from "../../src/config.js"
import { connectRedis } from "../../src/redis/redis-client.js"
import type { ChannelCredentials } from "../../src/upstream/credentials.js"
import { makeRedisThrottle, type Throttle, type ThrottleSender, throttleSender } from "../../src/upstream/throttle.js"
import { Upstream } from "../../src/upstream/upstream.js"
import { GRAPH, makeRecorder, successHandlers, VERSION } from "../fixtures/meta/index.js"
import { graphMock } from "../support/graph-mock.js"
import { maxInWindow } from "./windows.js"

/*
 * The throttle over Redis, as each API or worker process builds it: instances over one Redis
 * share each channel's schedule, so N processes still send at the channel's rate, not N times it.
 */

const REDIS = "redis://127.0.0.1:6379"

/** A port nothing listens on: bound, then closed. */
const closedPort = await new Promise<number>((resolve) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as { port: number }).port
    server.close(() => resolve(port))
  })
})

/** Keys of this run, deleted at the end (they also expire a second past their last slot). */
const namespace = () => `platform:test:throttle:${process.pid}-${Math.random().toString(36).slice(2, 10)}:`

/** Channel row `id` sending from its own phone number. */
const chat = (id: number, phoneNumberId = `10654035224${id}`) => throttleSender({ kind: "chat", id, phone_number_id: phoneNumberId })

/** Two instances (two connections, as two processes have) over one Redis namespace. */
const twoInstances = (maxWait: Duration.DurationInput) =>
  Effect.gen(function*() {
    const ns = namespace()
    const a = yield* makeRedisThrottle(yield* connectRedis(REDIS), { maxWait, namespace: ns })
    const b = yield* makeRedisThrottle(yield* connectRedis(REDIS), { maxWait, namespace: ns })
    return [a, b] as const
  })

/**
 * Waits (on I/O, not on time) until each of `total` acquisitions has had its answer from Redis:
 * it has then finished or is asleep on the TestClock, which can be stepped from there.
 */
const settled = (total: number, finished: () => number) =>
  Effect.gen(function*() {
    while (finished() + Chunk.size(yield* TestClock.sleeps()) < total) {
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
    }
  })

/**
 * Bursts of acquisitions, all at t=0: `size` from each instance interleaved, or with `inTurn` each
 * instance's burst once the previous one's have their answers. When each passed, by instance, and
 * what refused the others.
 */
const burst = (
  instances: ReadonlyArray<Throttle>,
  sender: ThrottleSender,
  rate: number,
  size: number,
  inTurn = false
) =>
  Effect.gen(function*() {
    let finished = 0
    const run = (attempts: ReadonlyArray<number>) =>
      Effect.forEach(
        attempts,
        (instance) =>
          Effect.either(instances[instance]!.acquire(sender, rate)).pipe(
            Effect.zip(Clock.currentTimeMillis),
            Effect.map(([result, at]) => ({ instance, result, at })),
            Effect.ensuring(Effect.sync(() => finished++))
          ),
        { concurrency: "unbounded" }
      ).pipe(Effect.fork)
    const groups = inTurn
      ? instances.map((_, instance) => Array.from({ length: size }, () => instance))
      : [Array.from({ length: size * instances.length }, (_, i) => i % instances.length)]
    const fibers = []
    let started = 0
    for (const group of groups) {
      fibers.push(yield* run(group))
      started += group.length
      yield* settled(started, () => finished)
    }
    expect(yield* Clock.currentTimeMillis).toBe(0)
    yield* TestClock.adjust(Duration.seconds(5))
    const results = (yield* Fiber.join(Fiber.all(fibers))).flat()
    const passed = results.filter((r) => Either.isRight(r.result))
    return {
      passed: passed.map((r) => r.at),
      passedBy: (instance: number) => passed.filter((r) => r.instance === instance).map((r) => r.at),
      refused: results.flatMap((r) => Either.isLeft(r.result) ? [{ error: r.result.left, at: r.at }] : [])
    }
  })

const warnings: Array<string> = []
const CaptureWarnings = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ logLevel, message }) => {
    if (logLevel.label === "WARN") warnings.push(JSON.stringify(message))
  })
)

const redis = new Redis(REDIS)
const meta = graphMock("error")

/** A channel id and phone numbers no other run uses, for the wiring tests that keep the production namespace. */
const wiredChannel = 2_000_000_000 + Math.floor(Math.random() * 100_000_000)
const wiredNumber = (test: number) => `10${test}${wiredChannel}`

afterAll(async () => {
  const keys = await redis.keys("platform:test:throttle:*")
  await redis.del(...keys, ...[0, 1, 2].map((test) => `platform:v1:throttle:chat:${wiredNumber(test)}`))
  await redis.quit()
})

describe("per-channel throttle over Redis", () => {
  const slots = (from: number, count: number) => Array.from({ length: count }, (_, i) => (from + i) * 12.5)
  const sorted = (times: ReadonlyArray<number>) => [...times].sort((x, y) => x - y)

  it.scoped("a burst of rate on each of two instances in the same instant: the second instance's sends are spaced after the first's", () =>
    Effect.gen(function*() {
      const instances = yield* twoInstances(Duration.seconds(2))
      const { passed, passedBy, refused } = yield* burst(instances, chat(7), 80, 80, true)
      expect(refused).toHaveLength(0)
      expect(sorted(passedBy(0))).toEqual(slots(0, 80))
      expect(sorted(passedBy(1))).toEqual(slots(80, 80))
      expect(maxInWindow(passed, 1000)).toBe(80)
    }))

  it.scoped("two instances bursting 2 × rate interleaved share one schedule: every send in its own 1/rate slot", () =>
    Effect.gen(function*() {
      const instances = yield* twoInstances(Duration.seconds(2))
      const { passed, passedBy, refused } = yield* burst(instances, chat(7), 80, 80)
      expect(refused).toHaveLength(0)
      expect(sorted(passed)).toEqual(slots(0, 160))
      expect(passedBy(0).length).toBeGreaterThan(0)
      expect(passedBy(1).length).toBeGreaterThan(0)
      expect(maxInWindow(passed, 1000)).toBe(80)
    }))

  it.scoped("beyond the bounded wait the two instances' surplus fails at once with UpstreamThrottled, and reserves no slot", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoInstances(Duration.seconds(1))
      const { passed, refused } = yield* burst([a, b], chat(7), 80, 80)
      expect(passed).toHaveLength(81)
      expect(maxInWindow(passed, 1000)).toBeLessThanOrEqual(80)
      expect(Math.max(...passed)).toBe(1000)
      expect(refused).toHaveLength(79)
      expect(refused.every((r) => r.at === 0)).toBe(true)
      expect(refused[0]?.error).toMatchObject({ _tag: "UpstreamThrottled", channel_id: 7, rate_per_second: 80 })
    }))

  it.scoped("a refused acquisition reserves no slot: the next one is due when the last passed one's interval ends", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoInstances(Duration.zero)
      yield* a.acquire(chat(9), 1)
      for (let i = 0; i < 3; i++) {
        expect(yield* Effect.flip(b.acquire(chat(9), 1))).toMatchObject({ _tag: "UpstreamThrottled", channel_id: 9, rate_per_second: 1 })
      }
      yield* TestClock.adjust(Duration.millis(999))
      expect(Either.isLeft(yield* Effect.either(a.acquire(chat(9), 1)))).toBe(true)
      yield* TestClock.adjust(Duration.millis(1))
      yield* b.acquire(chat(9), 1)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* a.acquire(chat(9), 1)
    }))

  it.scoped("channels do not share a schedule", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoInstances(Duration.zero)
      yield* a.acquire(chat(1), 1)
      yield* b.acquire(chat(2), 1)
      expect(Either.isLeft(yield* Effect.either(b.acquire(chat(1), 1)))).toBe(true)
      expect(Either.isLeft(yield* Effect.either(a.acquire(chat(2), 1)))).toBe(true)
    }))

  it.scoped("with Redis unreachable, sends still pass, spaced by the in-process throttle, and the outage is logged once", () =>
    Effect.gen(function*() {
      const before = warnings.length
      const throttle = yield* makeRedisThrottle(yield* connectRedis(`redis://127.0.0.1:${closedPort}`), {
        maxWait: Duration.seconds(1),
        namespace: namespace()
      })
      const { passed, refused } = yield* burst([throttle], chat(3), 80, 81)
      expect(refused).toHaveLength(0)
      expect([...passed].sort((x, y) => x - y)).toEqual(Array.from({ length: 81 }, (_, i) => i * 12.5))
      expect(maxInWindow(passed, 1000)).toBe(80)
      expect(warnings.slice(before).filter((w) => w.includes("upstream throttle store unavailable"))).toHaveLength(1)
    }).pipe(Effect.provide(CaptureWarnings)))

  it.scoped("two channel rows on one phone number, on two instances, share its schedule; the refusal names the caller's row", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoInstances(Duration.zero)
      yield* a.acquire(chat(1, "106540352242922"), 1)
      expect(yield* Effect.flip(b.acquire(chat(2, "106540352242922"), 1)))
        .toMatchObject({ _tag: "UpstreamThrottled", channel_id: 2, rate_per_second: 1 })
      yield* b.acquire(chat(3, "106540352242923"), 1)
    }))

  it.scoped.each([
    ["chat:106540352242922", chat(5, "106540352242922")],
    ["social:17841400000000001", throttleSender({ kind: "social", id: 5, social_id: "17841400000000001" })]
  ] as const)("channel row 5's key is the namespace and %s, Meta's sender id, not the row id", ([key, sender]) =>
    Effect.gen(function*() {
      const ns = namespace()
      const throttle = yield* makeRedisThrottle(yield* connectRedis(REDIS), { namespace: ns })
      yield* throttle.acquire(sender, 1)
      expect(yield* Effect.promise(() => redis.keys(`${ns}*`))).toEqual([`${ns}${key}`])
    }))

  it.scoped("a channel's key expires a second past the slot it holds", () =>
    Effect.gen(function*() {
      const ns = namespace()
      const throttle = yield* makeRedisThrottle(yield* connectRedis(REDIS), { namespace: ns })
      yield* throttle.acquire(chat(5, "106540352242922"), 1)
      const ttl = yield* Effect.promise(() => redis.pttl(`${ns}chat:106540352242922`))
      expect(ttl).toBeGreaterThan(1_500)
      expect(ttl).toBeLessThanOrEqual(2_000)
    }))
})

describe("Upstream picks its throttle by REDIS_URL", () => {
  const channel: ChannelCredentials = {
    kind: "chat",
    id: wiredChannel,
    phone_number_id: wiredNumber(0),
    waba_id: "102290129340398",
    access_token: Redacted.make("EAAGmswChatToken0123456789abcdef"),
    throughput_per_second: 1
  }

  /** One process's Upstream (its own layer build, so its own connection), with no wait for a slot. */
  const instance = (redisUrl: string | undefined) =>
    Effect.map(
      Layer.build(
        Upstream.layerWith({ throttleMaxWait: Duration.zero }).pipe(
          Layer.provide(AppConfig.layerWith({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION, REDIS_URL: redisUrl })),
          Layer.provide(FetchHttpClient.layer)
        )
      ),
      Context.get(Upstream)
    )

  const send = (upstream: Upstream, creds = channel) => Effect.either(upstream.sendMessage(creds, { to: "15551234567", type: "text", text: "hi" }))

  it.scoped.each([
    { label: "with REDIS_URL the instances share the schedule: the second is refused", redisUrl: REDIS, second: "Left", calls: 1 },
    { label: "without REDIS_URL each instance throttles alone: both are sent", redisUrl: undefined, second: "Right", calls: 2 }
  ] as const)("two instances sending on one channel at 1/s in the same instant, $label", ({ calls, redisUrl, second }) =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      meta.use(...successHandlers(rec))
      const a = yield* instance(redisUrl)
      const b = yield* instance(redisUrl)
      expect((yield* send(a))._tag).toBe("Right")
      const refused = yield* send(b)
      expect(refused._tag).toBe(second)
      if (Either.isLeft(refused)) {
        expect(refused.left).toMatchObject({ _tag: "UpstreamThrottled", channel_id: wiredChannel, rate_per_second: 1 })
      }
      expect(rec.calls).toHaveLength(calls)
    }))

  it.scoped.each([
    ["with", REDIS, 1],
    ["without", undefined, 2]
  ] as const)("two channel rows on one phone number sending at 1/s share its schedule %s REDIS_URL: the second row's send is refused", ([, redisUrl, test]) =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      meta.use(...successHandlers(rec))
      const upstream = yield* instance(redisUrl)
      const first: ChannelCredentials = { ...channel, phone_number_id: wiredNumber(test) }
      const second: ChannelCredentials = { ...first, id: wiredChannel + 1, access_token: Redacted.make("EAAGmswOtherChatToken0123456789ab") }
      expect((yield* send(upstream, first))._tag).toBe("Right")
      const refused = yield* send(upstream, second)
      expect(refused).toMatchObject({ _tag: "Left", left: { _tag: "UpstreamThrottled", channel_id: wiredChannel + 1, rate_per_second: 1 } })
      expect(rec.calls).toHaveLength(1)
    }))
})
