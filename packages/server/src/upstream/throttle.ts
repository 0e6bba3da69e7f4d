import { Clock, Duration, Effect, Option } from "effect"
import type { Redis } from "ioredis"
import { makeGuardedCall } from "../redis/guarded-call.js"
import { observeThrottle } from "../telemetry/metrics.js"
import { defineScript } from "../redis/redis-client.js"
import type { ChannelCredentials } from "./credentials.js"
import { UpstreamThrottled } from "./errors.js"

/** Meta's default Cloud API throughput per phone number; upgraded numbers get 1,000. */
export const CHAT_DEFAULT_RATE = 80
/** Instagram/Messenger Send API allowance for text per professional account. */
export const SOCIAL_DEFAULT_RATE = 300

export const channelRate = (creds: Pick<ChannelCredentials, "kind" | "throughput_per_second">): number =>
  creds.throughput_per_second && creds.throughput_per_second > 0
    ? creds.throughput_per_second
    : creds.kind === "chat"
    ? CHAT_DEFAULT_RATE
    : SOCIAL_DEFAULT_RATE

/**
 * Whom a send is counted against. Meta limits throughput per business phone number (chat) or per
 * professional account (social), not per channel row, so the schedule is keyed by that id: rows
 * on one number share it, and deployments sharing one Redis cannot collide on their row ids.
 */
export interface ThrottleSender {
  /** `chat:<phone_number_id>` or `social:<social_id>`. */
  readonly key: string
  /** Our channel row, which `UpstreamThrottled` names: the id the API user knows. */
  readonly channelId: number
}

export const throttleSender = (
  creds: Pick<ChannelCredentials, "kind" | "id" | "phone_number_id" | "social_id">
): ThrottleSender => {
  const upstreamId = creds.kind === "chat" ? creds.phone_number_id : creds.social_id
  // Every send has passed requireChat/requireSocial first; the row id only keeps this total.
  return { key: upstreamId ? `${creds.kind}:${upstreamId}` : `channel:${creds.id}`, channelId: creds.id }
}

export interface Throttle {
  /**
   * Waits for the sender's next send slot. Slots are spaced 1/rate apart, so no
   * window of one second ever holds more than `rate` sends; a caller whose slot
   * is further away than `maxWait` fails at once with `UpstreamThrottled`
   * instead of queueing (which also bounds the queue to rate × maxWait).
   */
  readonly acquire: (sender: ThrottleSender, ratePerSecond: number) => Effect.Effect<void, UpstreamThrottled>
}

export interface ThrottleOptions {
  /** Longest a caller waits for its slot before `UpstreamThrottled`; 1 s. */
  readonly maxWait?: Duration.DurationInput
}

const effectiveRate = (ratePerSecond: number) => ratePerSecond > 0 ? ratePerSecond : CHAT_DEFAULT_RATE

// Rounded up to whole microseconds so float error can never squeeze rate + 1 slots into a second.
const intervalMicros = (rate: number) => Math.ceil(1_000_000 / rate)

const throttled = (channelId: number, rate: number) =>
  new UpstreamThrottled({
    channel_id: channelId,
    rate_per_second: rate,
    message: `Channel ${channelId} is sending above its upstream throughput of ${rate} messages per second; retry shortly`
  })

/**
 * A per-sender scheduler in the style of GCRA: the state is one timestamp per
 * sender (the next free slot), updated synchronously, so concurrent fibers never
 * race for the same slot. Uses `Clock`, so `TestClock` drives it in tests.
 */
export const makeThrottle = (options: ThrottleOptions = {}, store: "local" | "redis" = "local"): Effect.Effect<Throttle> =>
  Effect.sync(() => {
    const maxWaitMs = Duration.toMillis(options.maxWait ?? Duration.seconds(1))
    const nextFree = new Map<string, number>()
    const acquire = ({ channelId, key }: ThrottleSender, ratePerSecond: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.suspend(() => {
          const rate = effectiveRate(ratePerSecond)
          const slot = Math.max(now, nextFree.get(key) ?? now)
          const wait = slot - now
          if (wait > maxWaitMs) {
            observeThrottle(store, "refused")
            return Effect.fail(throttled(channelId, rate))
          }
          nextFree.set(key, slot + intervalMicros(rate) / 1000)
          observeThrottle(store, wait)
          return wait > 0 ? Effect.sleep(Duration.millis(wait)) : Effect.void
        }))
    return { acquire }
  })

/*
 * GCRA over one key per sender holding its next free slot, in integer microseconds (exact in
 * a double; formatted with %d because Lua's tostring keeps only 14 digits). A slot further
 * than max_wait is refused without touching the key. The key expires a second past the slot
 * it holds: by then the slot is in the past and an absent key means the same.
 * ARGV: now_us, interval_us, max_wait_us. Returns {reserved (1|0), wait_us}.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local stored = redis.call('GET', KEYS[1])
local slot = now
if stored then slot = math.max(now, tonumber(stored)) end
local wait = slot - now
if wait > tonumber(ARGV[3]) then return {0, wait} end
local next_free = slot + tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%d', next_free), 'PX', string.format('%d', math.ceil((next_free - now) / 1000) + 1000))
return {1, wait}
`

/**
 * The throttle shared by every instance over Redis (REDIS_URL), so N API or worker processes
 * still send at the channel's rate, not N times it: each acquisition reserves the channel's next
 * slot in one atomic script, then sleeps until it on Effect's Clock. Time is the caller's Clock,
 * passed to the script, so instances rely on synchronised host clocks (NTP): a skew of d ms can let
 * about d × rate / 1000 extra sends into a second. If Redis fails or does not answer in time, the
 * send goes through this process's own throttle instead (never failed for the store's sake); the
 * outage is logged once.
 */
export const makeRedisThrottle = (
  redis: Redis,
  options: ThrottleOptions & { readonly namespace?: string } = {}
): Effect.Effect<Throttle> =>
  Effect.gen(function*() {
    // The fallback while Redis is out: its waits count as local ones.
    const local = yield* makeThrottle(options, "local")
    const namespace = options.namespace ?? "platform:v1:throttle:"
    const maxWaitMicros = Math.floor(Duration.toMillis(options.maxWait ?? Duration.seconds(1)) * 1000)
    const reserve = defineScript<[number, number]>(redis, "platformThrottle", 1, SCRIPT)
    const call = makeGuardedCall({
      unavailable: "upstream throttle store unavailable; throttling each sender in this process alone until it answers",
      available: "upstream throttle store available again"
    })
    const acquire = (sender: ThrottleSender, ratePerSecond: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const rate = effectiveRate(ratePerSecond)
        return Effect.flatMap(
          call(() => reserve(namespace + sender.key, Math.floor(now * 1000), intervalMicros(rate), maxWaitMicros)),
          Option.match({
            onNone: () => local.acquire(sender, ratePerSecond),
            onSome: ([reserved, wait]) => {
              observeThrottle("redis", reserved !== 1 ? "refused" : wait / 1000)
              return reserved !== 1
                ? Effect.fail(throttled(sender.channelId, rate))
                : wait > 0
                ? Effect.sleep(Duration.millis(wait / 1000))
                : Effect.void
            }
          })
        )
      })
    return { acquire }
  })
