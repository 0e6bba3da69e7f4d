import { SqlError } from "@effect/sql"
import { randomBytes } from "node:crypto"
import { Context, Deferred, Duration, Effect, Queue, Schedule, type Scope, Stream } from "effect"
import pg from "pg"
import { outageWatch } from "./outage.js"

/** What a subscriber receives after the connection was lost and regained: anything may have changed meanwhile. */
export const RESYNC = "*"

/**
 * Reconnects: at once, then after 0.1 s, doubling up to 5 s between attempts, each
 * wait ±20% (so that many processes do not reconnect in step), for as long as it takes.
 */
export const RECONNECT = Schedule.exponential(Duration.millis(100)).pipe(
  Schedule.union(Schedule.spaced(Duration.seconds(5))),
  Schedule.jittered
)

/** How long a subscription waits for a connection that is still being (re)opened before it goes on. */
const READY_WAIT = Duration.seconds(10)

export interface PgNotificationsShape {
  /**
   * Listens on `channel` for the life of the scope: resolves once the LISTEN is in
   * place (or, while Postgres is unreachable, after at most 10 s; the LISTEN then
   * follows on reconnect), to the stream of payloads NOTIFYed there by any
   * process, and `RESYNC` after each reconnect.
   */
  readonly subscribe: (channel: string) => Effect.Effect<Stream.Stream<string>, never, Scope.Scope>
  /** The connection's `application_name` in `pg_stat_activity`. */
  readonly connectionName: string
}

/**
 * LISTEN for a whole process, on one connection of its own. `PgClient.listen` of
 * @effect/sql-pg 0.53 ignores its connection's errors: after a Postgres restart or
 * a dropped connection its streams stay open and silent for good (wake-ups then
 * wait for the sweeps, route caches for their TTL), and its LISTENs overlap on one
 * client, which pg 8.23 warns about on every start. Here the commands run one
 * after another, a lost connection is opened again (on RECONNECT, the outage logged
 * once) and every channel listened to again, and subscribers are told (`RESYNC`). Embedded PGlite is one process, so
 * there nothing is listened to and the streams stay empty.
 */
export class PgNotifications extends Context.Tag("@platform/server/PgNotifications")<
  PgNotifications,
  PgNotificationsShape
>() {}

export const makePgNotifications = (
  config: pg.ClientConfig,
  embedded: boolean
): Effect.Effect<PgNotificationsShape, never, Scope.Scope> =>
  Effect.gen(function*() {
    const connectionName = `platform-listen-${randomBytes(4).toString("hex")}`
    if (embedded) return { connectionName, subscribe: () => Effect.succeed(Stream.never) }

    const subscribers = new Map<string, Set<(payload: string) => void>>()
    let client: pg.Client | undefined
    let ready = yield* Deferred.make<void>()
    // LISTEN and UNLISTEN one at a time on the one connection.
    let commands: Promise<void> = Promise.resolve()
    const command = (c: pg.Client, verb: "LISTEN" | "UNLISTEN", channel: string): Promise<void> => {
      commands = commands.then(() => c.query(`${verb} ${pg.escapeIdentifier(channel)}`)).then(() => undefined, () => undefined)
      return commands
    }
    const tell = (channel: string, payload: string) => {
      for (const push of subscribers.get(channel) ?? []) push(payload)
    }

    const connect = Effect.tryPromise({
      try: async (signal) => {
        const c = new pg.Client({ ...config, application_name: connectionName, keepAlive: true })
        const gone = new Promise<void>((resolve) => c.once("end", resolve))
        signal.addEventListener("abort", () => void c.end().catch(() => undefined), { once: true })
        // From before the connect to the end: a lost connection is an "error" event, then "end".
        c.on("error", () => void c.end().catch(() => undefined))
        c.on("notification", (message) => tell(message.channel, message.payload ?? ""))
        try {
          await c.connect()
        } catch (error) {
          await c.end().catch(() => undefined)
          throw error
        }
        return { c, gone }
      },
      catch: (cause) => new SqlError.SqlError({ cause, message: "LISTEN connection failed" })
    })
    const outage = outageWatch("LISTEN connection")

    const session = Effect.gen(function*() {
      for (let regained = false;; regained = true) {
        const { c, gone } = yield* connect.pipe(Effect.tapErrorCause(outage.failed), Effect.retry(RECONNECT))
        yield* outage.reached
        client = c
        for (const channel of subscribers.keys()) yield* Effect.promise(() => command(c, "LISTEN", channel))
        yield* Deferred.succeed(ready, undefined)
        if (regained) {
          yield* Effect.logInfo("LISTEN connection to Postgres regained")
          for (const channel of subscribers.keys()) tell(channel, RESYNC)
        }
        yield* Effect.promise(() => gone)
        client = undefined
        ready = yield* Deferred.make<void>()
        yield* Effect.logWarning("LISTEN connection to Postgres lost; reconnecting")
      }
    }).pipe(Effect.ensuring(Effect.promise(() => client?.end().catch(() => undefined) ?? Promise.resolve())))
    const scope = yield* Effect.scope
    const start = yield* Effect.cached(Effect.forkIn(session, scope))

    const subscribe = (channel: string) =>
      Effect.gen(function*() {
        const queue = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
        const push = (payload: string) => void Queue.unsafeOffer(queue, payload)
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            const set = subscribers.get(channel) ?? new Set()
            subscribers.set(channel, set.add(push))
          }),
          () =>
            Effect.sync(() => {
              const set = subscribers.get(channel)
              set?.delete(push)
              if (set?.size !== 0) return
              subscribers.delete(channel)
              if (client !== undefined) void command(client, "UNLISTEN", channel)
            })
        )
        yield* start
        const c = client
        if (c !== undefined) yield* Effect.promise(() => command(c, "LISTEN", channel))
        else yield* Deferred.await(ready).pipe(Effect.timeoutOption(READY_WAIT))
        return Stream.fromQueue(queue)
      })
    return { connectionName, subscribe }
  })
