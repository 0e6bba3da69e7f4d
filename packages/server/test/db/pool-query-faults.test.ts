import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Option } from "effect"
import { dedicatedSession, PgPool, poolQuery, scopedPool } from "../../src/db/client.js"
import { isConnectionFault } from "../../src/db/connection-fault.js"
import { DatabaseOutage, TestDatabaseBehindProxy } from "../support/outage-proxy.js"
import { recordUncaught } from "../support/uncaught.js"

// An 'error' event of a pg client that nobody listens to is thrown, which would end
// the process: each test checks there was none.
const uncaught = recordUncaught()

/**
 * Runs `statement` while the proxy has stalled every connection (so it is sent and
 * waits for its answer, or waits for a new connection), then cuts them all: returns
 * the statement's failure.
 */
const lostMidStatement = <A, E, R>(statement: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { proxy } = yield* DatabaseOutage
    proxy.stall()
    const fiber = yield* Effect.fork(statement)
    yield* Effect.sleep(Duration.millis(100))
    proxy.cut()
    return yield* Effect.flip(Fiber.join(fiber))
  }).pipe(Effect.ensuring(Effect.flatMap(DatabaseOutage, ({ proxy }) => Effect.sync(() => proxy.restore()))))

/** The pid of the backend of this database running `text` (polled until it runs, at most 5 s). */
const activeBackend = (text: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (let i = 0; i < 200; i++) {
      const [row] = yield* sql<{ pid: number }>`select pid from pg_stat_activity
        where datname = current_database() and query = ${text} and state = 'active'`
      if (row !== undefined) return row.pid
      yield* Effect.sleep(Duration.millis(25))
    }
    return yield* Effect.die(new Error(`no backend runs ${text}`))
  })

const onPostgres = (process.env.DATABASE_URL ?? "") !== ""

layer(TestDatabaseBehindProxy, { timeout: 60_000, excludeTestServices: true })("a connection lost while a statement holds it", (it) => {
  it.scoped("poolQuery fails that statement with a connection-level SqlError; the process and the pool go on", () =>
    Effect.gen(function*() {
      const db = yield* PgPool
      // A connection of the pool exists, so the statement below is sent at once.
      expect(yield* poolQuery<{ n: number }>(db, "faults_warm", "select 1 as n", [])).toEqual([{ n: 1 }])
      const error = yield* lostMidStatement(poolQuery(db, "faults_probe", "select 2 as n", []))
      expect(error._tag).toBe("SqlError")
      expect(isConnectionFault(error)).toBe(true)
      expect(yield* poolQuery<{ n: number }>(db, "faults_after", "select 3 as n", [])).toEqual([{ n: 3 }])
      expect(uncaught).toEqual([])
    }))

  it.scoped("a dedicated session fails its statement, and the next one runs on a new connection", () =>
    Effect.gen(function*() {
      const session = dedicatedSession(yield* PgPool)
      yield* Effect.addFinalizer(() => session.close)
      expect(yield* session.query<{ n: number }>("faults_session", "select 1 as n", [])).toEqual([{ n: 1 }])
      const error = yield* lostMidStatement(session.query("faults_session_lost", "select 2 as n", []))
      expect(isConnectionFault(error)).toBe(true)
      expect(yield* session.query<{ n: number }>("faults_session", "select 3 as n", [])).toEqual([{ n: 3 }])
      // Lost while the session holds it between statements: the next statement reconnects.
      const { proxy } = yield* DatabaseOutage
      proxy.cut()
      yield* Effect.sleep(Duration.millis(50))
      proxy.restore()
      expect(yield* session.query<{ n: number }>("faults_session", "select 4 as n", [])).toEqual([{ n: 4 }])
      expect(uncaught).toEqual([])
    }))

  it.scoped("PgClient statements and transactions fail with a connection-level SqlError; idle connections lost are replaced", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { proxy } = yield* DatabaseOutage
      yield* sql`select 1`
      const statement = yield* lostMidStatement(sql`select 2`)
      expect(isConnectionFault(statement)).toBe(true)
      const transaction = yield* lostMidStatement(sql.withTransaction(sql`select 3`))
      expect(isConnectionFault(transaction)).toBe(true)
      // Every pooled connection lost while idle.
      yield* sql`select 4`
      proxy.cut()
      yield* Effect.sleep(Duration.millis(50))
      const refused = yield* Effect.flip(sql`select 5`)
      expect(isConnectionFault(refused)).toBe(true)
      proxy.restore()
      expect(yield* sql<{ n: number }>`select 6 as n`).toEqual([{ n: 6 }])
      expect(yield* sql.withTransaction(sql<{ n: number }>`select 7 as n`)).toEqual([{ n: 7 }])
      expect(uncaught).toEqual([])
    }))

  if (onPostgres) {
    it.scoped("on PostgreSQL, a statement unanswered past the pool's bound fails as a lost connection, and that connection is dropped, not reused", () =>
      Effect.gen(function*() {
        const { direct, proxy } = yield* DatabaseOutage
        const bounds = { queryMs: 300, statementMs: 1_000, connectMs: 1_000 }
        const own = Option.getOrThrow(yield* scopedPool(yield* PgPool, { max: 1, settings: {}, bounds }))
        // PgClient hands a connection back as healthy after any statement error: only the pool's client can drop it.
        const sql = yield* Effect.provide(SqlClient.SqlClient, PgClient.layerFromPool({ acquire: Effect.succeed(own.pool) }))
        const backend = sql<{ pid: number }>`select pg_backend_pid() as pid`.pipe(Effect.map((rows) => rows[0]!.pid))
        const before = yield* backend
        proxy.stall()
        const [took, error] = yield* Effect.timed(Effect.flip(sql`select 1`))
        expect(isConnectionFault(error)).toBe(true)
        expect(Duration.toMillis(took)).toBeLessThan(bounds.queryMs + 500)
        proxy.restore()
        expect(yield* backend).not.toBe(before)
        for (let i = 0; i < 100; i++) {
          const [gone] = yield* direct<{ n: number }>("select count(*)::int as n from pg_stat_activity where pid = $1", [before])
          if (gone?.n === 0) break
          yield* Effect.sleep(Duration.millis(20))
        }
        expect(yield* direct<{ n: number }>("select count(*)::int as n from pg_stat_activity where pid = $1", [before])).toEqual([{ n: 0 }])
        expect(uncaught).toEqual([])
      }).pipe(Effect.ensuring(Effect.flatMap(DatabaseOutage, ({ proxy }) => Effect.sync(() => proxy.restore())))))

    it.scoped("on PostgreSQL, pg_terminate_backend of the backend running poolQuery's pg_sleep fails that statement only", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const db = yield* PgPool
        const fiber = yield* Effect.fork(poolQuery(db, "faults_sleep", "select pg_sleep(5)", []))
        const pid = yield* activeBackend("select pg_sleep(5)")
        yield* sql`select pg_terminate_backend(${pid})`
        const error = yield* Effect.flip(Fiber.join(fiber))
        expect((error.cause as { code?: string }).code).toBe("57P01")
        expect(isConnectionFault(error)).toBe(true)
        expect(yield* poolQuery<{ n: number }>(db, "faults_after_terminate", "select 1 as n", [])).toEqual([{ n: 1 }])
        // The terminated connection left the pool: every connection it has is alive.
        const [alive] = yield* sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`
        expect(alive?.n).toBe(0)
        expect(uncaught).toEqual([])
      }))
  }
})
