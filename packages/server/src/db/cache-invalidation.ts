import { PgClient } from "@effect/sql-pg"
import { Effect, type Scope, Stream } from "effect"
import { pgNotify, PgPool } from "./client.js"
import { PgNotifications, RESYNC } from "./notifications.js"

/**
 * Keeps an in-process cache of rows true across processes: `forget(id)` runs here
 * for every id another process announces on `channel` (and `forget()`, all of
 * them, when one announces everything or the LISTEN connection was lost and
 * regained: anything may have changed meanwhile). Returns the announcer of this
 * process's own changes, to run after they commit. Only on real PostgreSQL:
 * embedded PGlite is one process (and its socket server mixes notifications into
 * other connections' streams), so there both sides do nothing.
 */
export const crossProcessInvalidation = (
  channel: string,
  forget: (id?: number) => void
): Effect.Effect<(id?: number) => Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    const pool = yield* Effect.serviceOption(PgPool)
    const notifications = yield* Effect.serviceOption(PgNotifications)
    if (pg._tag === "None" || pool._tag === "None" || pool.value.embedded) return () => Effect.void
    if (notifications._tag === "Some") {
      const payloads = yield* notifications.value.subscribe(channel)
      yield* payloads.pipe(
        Stream.runForEach((payload) => Effect.sync(() => forget(payload === RESYNC ? undefined : Number(payload)))),
        Effect.forkScoped
      )
    }
    const client = pg.value
    return (id?: number) =>
      pgNotify(client, channel, id === undefined ? RESYNC : String(id)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`NOTIFY on ${channel} failed`, cause))
      )
  })
