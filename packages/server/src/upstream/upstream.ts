import * as HttpClient from "@effect/platform/HttpClient"
import { type Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../config.js"
import { RedisClient } from "../redis/redis-client.js"
import { makeBusinessApi } from "./business.js"
import { type GraphClientOptions, makeGraphClient } from "./client.js"
import { makeMediaApi } from "./media.js"
import { makeMessagesApi } from "./messages.js"
import { makeOnboardingApi } from "./onboarding.js"
import { makeTemplatesApi } from "./templates.js"
import { makeRedisThrottle, makeThrottle } from "./throttle.js"

export interface UpstreamOptions extends GraphClientOptions {
  /** Longest a send waits for its channel's throttle slot before UpstreamThrottled; 1 s. */
  readonly throttleMaxWait?: Duration.DurationInput | undefined
}

/**
 * Builds the Graph API client over the ambient `HttpClient`, pointed at
 * `META_GRAPH_URL/META_GRAPH_VERSION` (the sandbox simulator by default).
 */
export const makeUpstream = (options: UpstreamOptions = {}) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const http = yield* HttpClient.HttpClient
    const graph = makeGraphClient({
      http,
      baseUrl: config.metaGraphUrl,
      version: config.metaGraphVersion,
      appSecret: config.metaAppSecret,
      tuning: options
    })
    const throttleOptions = options.throttleMaxWait !== undefined ? { maxWait: options.throttleMaxWait } : {}
    // Shared by every instance when REDIS_URL is set, as the rate limiter is: Meta counts a number's sends across all of them.
    const throttle = yield* Option.match(yield* RedisClient, {
      onNone: () => makeThrottle(throttleOptions),
      onSome: (redis) => makeRedisThrottle(redis, throttleOptions)
    })
    return {
      ...makeMessagesApi(graph, throttle),
      ...makeMediaApi(graph),
      ...makeTemplatesApi(graph, config.metaAppId),
      ...makeBusinessApi(graph),
      ...makeOnboardingApi(graph, { appId: config.metaAppId, appSecret: config.metaAppSecret })
    }
  })

/**
 * The only code that talks to Meta. Every method takes the channel's
 * `ChannelCredentials` (onboarding exchanges excepted) and fails with
 * `UpstreamError | UpstreamTimeout | UpstreamThrottled` (502) or
 * `UpstreamRequestInvalid` (400, refused before any call).
 */
export class Upstream extends Effect.Service<Upstream>()("@platform/server/Upstream", {
  effect: makeUpstream(),
  dependencies: [RedisClient.Live]
}) {
  /** The service with tuned deadlines, retries or throttle wait (tests). */
  static readonly layerWith = (options: UpstreamOptions) =>
    Layer.effect(Upstream, Effect.map(makeUpstream(options), (impl) => Upstream.make(impl))).pipe(
      Layer.provide(RedisClient.Live)
    )
}
