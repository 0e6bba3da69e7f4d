import { Clock, Context, Effect, Layer, Option } from "effect"
import type { Redis } from "ioredis"
import { makeGuardedCall } from "../redis/guarded-call.js"
import { connectRedis, defineScript, RedisClient } from "../redis/redis-client.js"

/** Outcome of one rate-limit check, with what the X-RateLimit-* headers need. */
export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Unix epoch seconds when the oldest counted request leaves the window. */
  readonly reset: number
  /** Seconds until a request would be admitted again (0 when allowed). */
  readonly retryAfter: number
}

export interface RateLimiterShape {
  /**
   * Counts one request in `bucket` if fewer than `limit` were counted in the last
   * `windowMs`; a refused request is not counted (SPEC §8: a 429 never consumes budget).
   */
  readonly consume: (bucket: string, limit: number, windowMs?: number) => Effect.Effect<RateDecision>
}

export const WINDOW_MS = 60_000

const decide = (
  allowed: boolean,
  limit: number,
  count: number,
  now: number,
  oldest: number,
  admitAt: number,
  windowMs: number
): RateDecision => ({
  allowed,
  limit,
  remaining: Math.max(0, limit - count),
  reset: Math.ceil((oldest + windowMs) / 1000),
  retryAfter: allowed ? 0 : Math.max(1, Math.ceil((admitAt + windowMs - now) / 1000))
})

/**
 * Sliding log per bucket. Only admitted requests are stored and never more than
 * `limit` of them, so memory is bounded by the limit and a check is amortised O(1).
 */
export const makeInMemory = (): RateLimiterShape => {
  const buckets = new Map<string, { ts: Array<number>; start: number }>()
  const clock = () => performance.timeOrigin + performance.now()
  let lastSweep = clock()
  const sweep = (now: number, windowMs: number) => {
    lastSweep = now
    for (const [key, b] of buckets) {
      if (b.ts.length === b.start || b.ts[b.ts.length - 1]! <= now - windowMs) buckets.delete(key)
    }
  }
  return {
    consume: (bucket, limit, windowMs = WINDOW_MS) =>
      Effect.sync(() => {
        const now = clock()
        if (now - lastSweep > windowMs) sweep(now, windowMs)
        let b = buckets.get(bucket)
        if (b === undefined) {
          b = { ts: [], start: 0 }
          buckets.set(bucket, b)
        }
        const cutoff = now - windowMs
        while (b.start < b.ts.length && b.ts[b.start]! <= cutoff) b.start++
        if (b.start > 1024 && b.start * 2 > b.ts.length) {
          b.ts = b.ts.slice(b.start)
          b.start = 0
        }
        const count = b.ts.length - b.start
        if (count < limit) {
          b.ts.push(now)
          return decide(true, limit, count + 1, now, b.ts[b.start]!, now, windowMs)
        }
        // The request admitted (count - limit) places after the oldest frees the slot we need.
        return decide(false, limit, count, now, b.ts[b.start]!, b.ts[b.start + count - limit]!, windowMs)
      })
  }
}

/*
 * One atomic script over a sorted set per bucket, timed by the Redis server's clock so
 * that instances with drifting clocks still share one window. Returns
 * {allowed, count, oldest_ms, admit_at_ms, now_ms}.
 */
const SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, now .. ':' .. ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local oldest = now
if first[2] then oldest = tonumber(first[2]) end
local admit = now
if allowed == 0 then
  local at = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  if at[2] then admit = tonumber(at[2]) end
end
return {allowed, count, oldest, admit, now}
`

/**
 * Redis implementation so limits hold across instances. If Redis is unreachable or does not
 * answer in time the request is admitted: an outage of the limiter store must not take the API
 * down with it, nor slow it down (see `connectRedis` and `makeGuardedCall`).
 */
export const makeRedis = (redis: Redis, namespace = "platform:v1:ratelimit:") =>
  Effect.sync(() => {
    const script = defineScript<Array<number>>(redis, "platformRateLimit", 1, SCRIPT)
    const call = makeGuardedCall({
      unavailable: "rate limiter store unavailable; admitting requests until it answers",
      available: "rate limiter store available again"
    })
    let seq = 0
    const prefix = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`
    const admitted = (limit: number, windowMs: number) =>
      Effect.map(Clock.currentTimeMillis, (now) => decide(true, limit, 0, now, now, now, windowMs))
    return {
      consume: (bucket, limit, windowMs = WINDOW_MS) =>
        Effect.flatMap(
          call(() => script(namespace + bucket, limit, windowMs, `${prefix}-${seq++}`)),
          Option.match({
            onNone: () => admitted(limit, windowMs),
            onSome: ([allowed, count, oldest, admit, redisNow]) =>
              Effect.succeed(decide(allowed === 1, limit, count!, redisNow!, oldest!, admit!, windowMs))
          })
        )
    } satisfies RateLimiterShape
  })

/** Per-key rate limiting (SPEC §8): in-process by default, Redis when REDIS_URL is set. */
export class RateLimiter extends Context.Tag("@platform/server/RateLimiter")<RateLimiter, RateLimiterShape>() {
  static readonly InMemory = Layer.sync(RateLimiter, makeInMemory)
  static readonly redis = (url: string, namespace?: string) =>
    Layer.scoped(RateLimiter, Effect.flatMap(connectRedis(url), (client) => makeRedis(client, namespace)))
  static readonly Live = Layer.effect(
    RateLimiter,
    Effect.flatMap(RedisClient, (client) =>
      Option.match(client, {
        onNone: () => Effect.sync(makeInMemory),
        onSome: (redis) => makeRedis(redis)
      }))
  ).pipe(Layer.provide(RedisClient.Live))
}
