import { Context, Effect, Layer, Option, Redacted } from "effect"
import { Redis } from "ioredis"
import { AppConfig } from "../config.js"

/** How long a Redis command may take before its caller goes on without it. */
const REDIS_COMMAND_TIMEOUT_MS = 250
/** How long start-up waits for the first connection before it goes on without one. */
const REDIS_READY_WAIT_MS = 2_000

/**
 * A connection for the stores shared across instances (rate limits, the upstream throttle). Each
 * of them has an in-process fallback, so an outage of Redis must neither fail nor slow a request:
 * commands are not queued while disconnected (they fail at once) and take at most
 * REDIS_COMMAND_TIMEOUT_MS.
 */
export const connectRedis = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Redis(url, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        enableAutoPipelining: true,
        lazyConnect: false
      })
      client.on("error", () => undefined)
      // Without the offline queue a command before the first connection fails over to the fallback: wait for it briefly.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, REDIS_READY_WAIT_MS)
        client.once("ready", () => {
          clearTimeout(timer)
          resolve()
        })
      })
      return client
    }),
    (client) => Effect.promise(() => client.quit().catch(() => undefined))
  )

/**
 * A Lua script as a function of its keys and arguments, sent with EVALSHA (and loaded again
 * by ioredis when the server answers NOSCRIPT).
 */
export const defineScript = <A>(client: Redis, name: string, numberOfKeys: number, lua: string) => {
  client.defineCommand(name, { numberOfKeys, lua })
  const commands = client as unknown as Record<string, (...args: ReadonlyArray<string | number>) => Promise<A>>
  return (...args: ReadonlyArray<string | number>): Promise<A> => commands[name]!(...args)
}

/**
 * The process's Redis connection when REDIS_URL is set (none otherwise). The layer is one value,
 * so the rate limiter and the upstream throttle built in one application share one connection
 * (and one start-up wait).
 */
export class RedisClient extends Context.Tag("@platform/server/RedisClient")<RedisClient, Option.Option<Redis>>() {
  static readonly Live = Layer.scoped(
    RedisClient,
    Effect.flatMap(AppConfig, (config) =>
      Option.match(config.redisUrl, {
        onNone: () => Effect.succeedNone,
        onSome: (url) => Effect.asSome(connectRedis(Redacted.value(url)))
      }))
  )
}
