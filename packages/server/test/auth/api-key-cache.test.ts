import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { vi } from "vitest"
import { pgNotify } from "../../src/db/client.js"
import { ApiKeys } from "../../src/domain/api-keys.js"
import { sql, TestDatabase } from "../support/database.js"

/** A second (third, ...) instance's ApiKeys over the same database, for the life of the test's scope. */
const instance = Effect.map(Layer.build(Layer.fresh(ApiKeys.Default)), (context) => Context.get(context, ApiKeys))

/** Whether the database is real PostgreSQL: embedded PGlite is one process, with no other instance to tell. */
const realPostgres = Effect.gen(function*() {
  const [server] = yield* (yield* sql)<{ version: string }>`select version() as version`
  return !/PGlite/i.test(server!.version)
})

/**
 * Waits for `instance` to have forgotten `plaintext` (its next request asks the
 * database). The clock of the caches is frozen meanwhile (Date only: timers run),
 * so a cached key never grows stale by itself here: only a NOTIFY can forget it.
 */
const forgotten = (keys: ApiKeys, plaintext: string) =>
  Effect.sync(() => keys.lookupCached(plaintext)).pipe(
    Effect.repeat({ until: (cached) => cached === undefined, schedule: Schedule.spaced(Duration.millis(10)) }),
    Effect.timeoutFail({ duration: Duration.seconds(10), onTimeout: () => new Error("the other instance kept the key") })
  )

layer(TestDatabase, { timeout: 60_000, excludeTestServices: true })("API key cache across instances", (it) => {
  it.scoped("a key deactivated or deleted on one instance is refused by another at once, not after its cache TTL", () =>
    Effect.gen(function*() {
      const [account] = yield* (yield* sql)<{ id: number }>`insert into developer_accounts (name) values ('a') returning id`
      const a = yield* instance
      // Embedded PGlite serves one process: there, the instance that made the change is the one to check.
      const b = (yield* realPostgres) ? yield* instance : a
      const created = yield* a.create(account!.id, { name: "ci" })
      expect(yield* b.lookup(created.key)).toMatchObject({ id: created.id, is_active: true })
      expect(b.lookupCached(created.key)).toMatchObject({ is_active: true })

      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
      yield* Effect.addFinalizer(() => Effect.sync(() => vi.useRealTimers()))

      yield* a.update(account!.id, created.id, { is_active: false })
      yield* forgotten(b, created.key)
      expect(yield* b.lookup(created.key)).toMatchObject({ id: created.id, is_active: false })

      yield* a.remove(account!.id, created.id)
      yield* forgotten(b, created.key)
      expect(yield* b.lookup(created.key)).toBeNull()
      if (a === b) return

      // Told that anything may have changed (after its LISTEN connection was lost and regained), b forgets every key.
      const other = yield* a.create(account!.id, { name: "other" })
      yield* b.lookup(other.key)
      yield* pgNotify(yield* PgClient.PgClient, "platform_api_keys", "*")
      yield* forgotten(b, other.key)
    }))
})
