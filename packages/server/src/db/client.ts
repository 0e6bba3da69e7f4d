import { Migrator, SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { AppConfig } from "../config.js"
import { countAnswers } from "./answers.js"
import { isLostConnection } from "./connection-fault.js"
import { lockDataDir } from "./data-dir-lock.js"
import { migrations } from "./migrations/index.js"
import { makePgNotifications, PgNotifications } from "./notifications.js"
import { API_BOUNDS, boundedConfig, type StatementBounds } from "./statement-bounds.js"
import pg from "pg"

// Bigint ids and counts come back as JS numbers: every id of SPEC is an integer
// and none of our sequences approaches 2^53.
const INT8_OID = 20
const types = {
  getTypeParser: (oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text")
}

export interface Connection {
  readonly host: string
  readonly port: number
  readonly database: string
  readonly username: string
  readonly password?: string
  /** The embedded PGlite (one session for every client: no settings per connection). */
  readonly embedded?: boolean
}

/** Parses a postgres:// URL into the parts PgClient and `createdb`-style helpers need. */
export const parseDatabaseUrl = (url: string): Connection => {
  const u = new URL(url)
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: u.port ? Number(u.port) : 5432,
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
    username: decodeURIComponent(u.username) || "postgres",
    ...(u.password ? { password: decodeURIComponent(u.password) } : {})
  }
}

/**
 * The `pg` pool under the application's PgClient, for the few hot statements that
 * run as NAMED prepared statements (`{ name, text, values }`): each connection
 * parses and plans them once, then only binds and executes (DESIGN §8). Off on
 * embedded PGlite, whose socket server gives every client the same backend
 * session, so a name prepared by one client would collide with another's.
 */
export class PgPool extends Context.Tag("@platform/server/PgPool")<PgPool, {
  readonly pool: pg.Pool
  /** What the pool connects with (see `scopedPool`). */
  readonly config: pg.PoolConfig
  /** Whether named prepared statements are safe on this server (real Postgres). */
  readonly namedStatements: boolean
  /** Embedded PGlite behind its socket server (one process; no LISTEN/NOTIFY across processes). */
  readonly embedded: boolean
}>() {}

const queryConfig = (db: PgPool["Type"], name: string, text: string, values: ReadonlyArray<unknown>) =>
  db.namedStatements ? { name, text, values: values as Array<unknown> } : { text, values: values as Array<unknown> }
const failedWith = (err: Error) => Effect.fail(new SqlError.SqlError({ cause: err, message: "Failed to execute statement" }))

/**
 * Runs a query on the shared pool, as a named prepared statement when the
 * server supports them (else unnamed). Errors are `SqlError`s like PgClient's,
 * with the driver's error (and its SQLSTATE `code`) as the cause.
 *
 * pg-pool takes its own 'error' listener off a client it hands out, and a pg
 * client emits 'error' when its socket fails (a PostgreSQL restart, a reset
 * connection): with no listener that event is thrown and ends the process. So
 * the checkout has a listener until the client is released, and a connection
 * lost mid-statement fails that statement only. The client is released once
 * (with the error, so the pool drops it) and the effect resumed once, whichever
 * of the 'error' event and the query's callback comes first.
 */
export const poolQuery = <A extends object>(
  db: PgPool["Type"],
  name: string,
  text: string,
  values: ReadonlyArray<unknown>
): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> =>
  Effect.async<ReadonlyArray<A>, SqlError.SqlError>((resume) => {
    let resumed = false
    const settle = (effect: Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>) => {
      if (resumed) return
      resumed = true
      resume(effect)
    }
    const run = (retried: boolean) =>
      db.pool.connect((connectError, client, release) => {
        if (connectError || client === undefined) return settle(failedWith(connectError ?? new Error("no connection")))
        let released = false
        const giveBack = (err?: Error) => {
          if (released) return false
          released = true
          client.off("error", onError)
          release(err)
          return true
        }
        const onError = (err: Error) => {
          if (giveBack(err)) settle(failedWith(err))
        }
        client.on("error", onError)
        client.query(queryConfig(db, name, text, values), (err: Error | undefined, result: pg.QueryResult | undefined) => {
          if (err && isStalePlan(err)) {
            // Its prepared statements went with it: the next connection prepares them afresh.
            if (!giveBack(err)) return
            return retried ? settle(failedWith(err)) : run(true)
          }
          // A statement error leaves the connection usable; a lost connection is dropped.
          if (!giveBack(err && isLostConnection(err) ? err : undefined)) return
          settle(err ? failedWith(err) : Effect.succeed((result?.rows ?? []) as Array<A>))
        })
      })
    run(false)
  })

/**
 * A named statement prepared before a migration changed the columns it returns:
 * Postgres refuses to run it again ("cached plan must not change result type")
 * for the life of the connection, so the connection is dropped.
 */
const isStalePlan = (err: Error) => (err as { code?: unknown }).code === "0A000"

/**
 * One connection of the pool kept for a single sequential caller (the inbound
 * batch writer), so its named statements are planned once for good: the pool
 * hands out any idle connection, and one that never ran a statement plans it
 * again (tens of ms for the inbound statement on a fresh backend). A connection
 * that fails is dropped and the next query takes a new one. Release with `close`.
 */
export const dedicatedSession = (db: PgPool["Type"]) => {
  let client: pg.PoolClient | undefined
  /** Returns the connection to the pool, or with an error destroys it. */
  const drop = (err?: Error) => {
    const c = client
    client = undefined
    c?.release(err)
  }
  const withClient = (use: (c: pg.PoolClient) => void, fail: (err: Error) => void) => {
    if (client !== undefined) return use(client)
    db.pool.connect((err, c) => {
      if (err || c === undefined) return fail(err ?? new Error("no connection"))
      client = c
      // Kept for the connection's life (an "error" without a listener would throw).
      c.on("error", () => {
        if (client === c) drop(new Error("dedicated connection failed"))
      })
      use(c)
    })
  }
  const query = <A extends object>(name: string, text: string, values: ReadonlyArray<unknown>) =>
    Effect.async<ReadonlyArray<A>, SqlError.SqlError>((resume) => {
      withClient((c) => {
        c.query(queryConfig(db, name, text, values), (err: Error | undefined, result: pg.QueryResult | undefined) => {
          // A statement error (SQLSTATE) leaves the session usable; anything else ends it (unless
          // its 'error' listener dropped it already), and so do a SQLSTATE of a lost connection
          // and a prepared statement a migration made stale (see poolQuery).
          const code = (err as { code?: unknown } | undefined)?.code
          if (err && client === c && (code === undefined || isLostConnection(err) || isStalePlan(err))) drop(err)
          resume(err ? failedWith(err) : Effect.succeed((result?.rows ?? []) as Array<A>))
        })
      }, (err) => resume(failedWith(err)))
    })
  const close = Effect.sync(() => drop())
  return { query, close } as const
}

/** Ends a pool with the scope that owns it, waiting at most a second for its connections. */
const endPool = (pool: pg.Pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))

/**
 * A pool of its own beside the application's, to the same database, whose
 * connections start with the given settings (Postgres' startup `options`) and
 * statements are bounded by `bounds`, for one service's statements; ended with
 * the scope. None on embedded PGlite: its one backend session serves every
 * client, so no connection has settings of its own.
 */
export const scopedPool = (
  db: PgPool["Type"],
  options: { readonly max: number; readonly settings: Record<string, string>; readonly bounds: StatementBounds }
): Effect.Effect<Option.Option<PgPool["Type"]>, never, Scope.Scope> =>
  db.embedded
    ? Effect.succeedNone
    : Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({
          ...db.config,
          ...boundedConfig(options.bounds, true),
          max: options.max,
          options: Object.entries(options.settings).map(([k, v]) => `-c ${k}=${v}`).join(" ")
        })
        pool.on("error", () => {})
        countAnswers(pool)
        return pool
      }),
      endPool
    ).pipe(Effect.map((pool) => Option.some({ ...db, pool })))

/** The settings of a pool to `connection`, unbounded (migrations) or with `bounds` (see statement-bounds.ts). */
const poolConfig = (connection: Connection, maxConnections: number, bounds: StatementBounds | undefined): pg.PoolConfig => ({
  host: connection.host,
  port: connection.port,
  database: connection.database,
  user: connection.username,
  ...(connection.password === undefined ? {} : { password: connection.password }),
  max: maxConnections,
  idleTimeoutMillis: 30_000,
  connectionTimeoutMillis: 10_000,
  application_name: "@effect/sql-pg",
  types: types as never,
  ...(bounds === undefined ? {} : boundedConfig(bounds, connection.embedded !== true))
})

/**
 * A PgClient layer for one connection target, with the product's type parsers,
 * built over a pool this layer owns (also provided as `PgPool`), whose statements
 * are bounded by `bounds` (the API's by default).
 */
export const pgLayer = (connection: Connection, maxConnections = 10, bounds: StatementBounds = API_BOUNDS) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const pool = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const config = poolConfig(connection, maxConnections, bounds)
          const pool = new pg.Pool(config)
          pool.on("error", () => {})
          countAnswers(pool)
          try {
            const { rows } = await pool.query<{ version: string }>("select version() as version")
            return { pool, config, embedded: /PGlite/i.test(rows[0]?.version ?? "") }
          } catch (error) {
            await pool.end().catch(() => undefined)
            throw error
          }
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: Duration.seconds(10),
          onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
        })
      ),
      ({ pool }) => endPool(pool)
    )
    return PgClient.layerFromPool({ acquire: Effect.succeed(pool.pool), types: types as never }).pipe(
      Layer.merge(Layer.succeed(PgPool, {
        pool: pool.pool,
        config: pool.config,
        namedStatements: !pool.embedded,
        embedded: pool.embedded
      })),
      Layer.merge(Layer.scoped(PgNotifications, makePgNotifications(pool.config, pool.embedded)))
    )
  }))

// Built by scripts/pglite-seed.mjs next to the bundle; from sources (tests) it is
// found in ../../dist. Without it PGlite runs initdb itself, only slower.
const seedCandidates = [
  new URL("./pglite-seed.tar.gz", import.meta.url),
  new URL("../../dist/pglite-seed.tar.gz", import.meta.url)
]

/**
 * An in-process PGlite exposed over a loopback socket on an ephemeral port, so the
 * same `@effect/sql-pg` code path serves embedded and real Postgres.
 */
export const embeddedConnection = (options: { readonly dataDir?: string | undefined }) =>
  (options.dataDir === undefined ? Effect.void : lockDataDir(options.dataDir)).pipe(Effect.zipRight(Effect.acquireRelease(
    Effect.promise(async () => {
      const { PGlite } = await import("@electric-sql/pglite")
      const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket")
      if (options.dataDir !== undefined) {
        const { mkdirSync } = await import("node:fs")
        mkdirSync(options.dataDir, { recursive: true })
      }
      const { existsSync, readFileSync } = await import("node:fs")
      const fresh = options.dataDir === undefined || !existsSync(`${options.dataDir}/PG_VERSION`)
      const seed = fresh ? seedCandidates.find((url) => existsSync(url)) : undefined
      const db = await PGlite.create({
        ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
        ...(seed === undefined ? {} : { loadDataDir: new Blob([readFileSync(seed)]) })
      })
      const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 16 })
      await server.start()
      const port = Number(/:(\d+)$/.exec(server.getServerConn())?.[1])
      return { db, server, port }
    }),
    ({ db, server }) => Effect.promise(async () => {
      await server.stop().catch(() => undefined)
      await db.close().catch(() => undefined)
    })
  ))).pipe(
    Effect.map(({ port }): Connection => ({ host: "127.0.0.1", port, database: "postgres", username: "postgres", embedded: true }))
  )

/**
 * PGlite is one session behind a socket multiplexer that interleaves the
 * extended-protocol messages of concurrent connections (measured: "bind message
 * supplies 4 parameters, but prepared statement requires 2" with 4 connections),
 * so the embedded database is used through exactly one connection.
 */
export const EMBEDDED_CONNECTIONS = 1

/** Runs every pending migration (one process at a time: see `migrateUnbounded`). */
export const migrate = Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: "platform_migrations" })

/** The advisory lock under which a process migrates (its own key; see demo.ts and fan-out.ts for the others). */
const MIGRATION_LOCK = 0x706c_6d01

/*
 * The migrator locks its table, but first creates it (`create table if not exists`),
 * and two processes doing that at the same moment on an empty database collide in
 * the catalog: one fails with "duplicate key value violates unique constraint
 * pg_type_typname_nsp_index" (seen when four processes of a deployment started
 * together). A session advisory lock on the migrating connection, the pool's only
 * one, lets one process migrate while the others wait, then find nothing to do.
 */
const migrateAlone = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.acquireUseRelease(
    sql`select pg_advisory_lock(${MIGRATION_LOCK})`,
    () => migrate,
    () => Effect.ignore(sql`select pg_advisory_unlock(${MIGRATION_LOCK})`)
  ))

/**
 * Runs `migrate` on a connection of its own without the statement bounds: a
 * migration may rewrite a large table, and a process starting beside another waits
 * on the migration lock for as long as the other's migrations take. Safe to call
 * from several processes at once.
 */
export const migrateUnbounded = (connection: Connection) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool(poolConfig(connection, 1, undefined))
      pool.on("error", () => {})
      return pool
    }),
    endPool
  ).pipe(
    Effect.flatMap((pool) =>
      Effect.provide(migrateAlone, PgClient.layerFromPool({ acquire: Effect.succeed(pool), types: types as never }))
    ),
    Effect.scoped
  )

/**
 * The application's database: `DATABASE_URL` when set, else embedded PGlite
 * (in memory with `PGLITE_MEMORY=1`), migrated before anything else uses it; its
 * statements bounded as the API's (see statement-bounds.ts).
 */
export const DatabaseLive = Layer.unwrapScoped(Effect.gen(function*() {
  const config = yield* AppConfig
  const connection = yield* Option.match(config.databaseUrl, {
    onSome: (url) => Effect.succeed(parseDatabaseUrl(Redacted.value(url))),
    onNone: () => embeddedConnection({ dataDir: config.pgliteMemory ? undefined : config.pgliteDir })
  })
  yield* migrateUnbounded(connection)
  return pgLayer(connection, connection.embedded === true ? EMBEDDED_CONNECTIONS : 20)
}))

export type Sql = SqlClient.SqlClient

/**
 * NOTIFY through `pg_notify`: `PgClient.notify` of @effect/sql-pg 0.53 sends
 * `NOTIFY "channel", $1`, which PostgreSQL rejects (NOTIFY takes no bind
 * parameters), so every cross-process wake-up would fail silently.
 */
export const pgNotify = (sql: SqlClient.SqlClient, channel: string, payload: string) =>
  Effect.asVoid(sql`select pg_notify(${channel}, ${payload})`)

