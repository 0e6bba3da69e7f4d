import { Clock, Duration, Effect } from "effect"
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

export interface Throttle {
  /**
   * Waits for the channel's next send slot. Slots are spaced 1/rate apart, so no
   * window of one second ever holds more than `rate` sends; a caller whose slot
   * is further away than `maxWait` fails at once with `UpstreamThrottled`
   * instead of queueing (which also bounds the queue to rate × maxWait).
   */
  readonly acquire: (channelId: number, ratePerSecond: number) => Effect.Effect<void, UpstreamThrottled>
}

/**
 * A per-channel scheduler in the style of GCRA: the state is one timestamp per
 * channel (the next free slot), updated synchronously, so concurrent fibers never
 * race for the same slot. Uses `Clock`, so `TestClock` drives it in tests.
 */
export const makeThrottle = (options: { readonly maxWait?: Duration.DurationInput } = {}): Effect.Effect<Throttle> =>
  Effect.sync(() => {
    const maxWaitMs = Duration.toMillis(options.maxWait ?? Duration.seconds(1))
    const nextFree = new Map<number, number>()
    const acquire = (channelId: number, ratePerSecond: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.suspend(() => {
          const rate = ratePerSecond > 0 ? ratePerSecond : CHAT_DEFAULT_RATE
          const slot = Math.max(now, nextFree.get(channelId) ?? now)
          const wait = slot - now
          if (wait > maxWaitMs) {
            return Effect.fail(
              new UpstreamThrottled({
                channel_id: channelId,
                rate_per_second: rate,
                message: `Channel ${channelId} is sending above its upstream throughput of ${rate} messages per second; retry shortly`
              })
            )
          }
          // Rounded up to whole microseconds so float error can never squeeze rate + 1 slots into a second.
          nextFree.set(channelId, slot + Math.ceil(1_000_000 / rate) / 1000)
          return wait > 0 ? Effect.sleep(Duration.millis(wait)) : Effect.void
        }))
    return { acquire }
  })
