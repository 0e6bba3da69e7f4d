import { Migrator, SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { EMBEDDED_CONNECTIONS, embeddedConnection, migrate, parseDatabaseUrl, pgLayer, type Connection } from "../../src/db/client.js"
import { migrations } from "../../src/db/migrations/index.js"

const adminQuery = async (connection: Connection, text: string) => {
  const client = new pg.Client({ ...connection, user: connection.username, database: connection.database })
  // A lost connection rejects the statement; without a listener its 'error' event would end the test worker too.
  client.on("error", () => {})
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * A fresh, migrated database for one test file: a new database on the server
 * named by `DATABASE_URL` (dropped afterwards), or an in-memory PGlite.
 * Files therefore run in parallel without seeing each other's rows.
 */
const database = (run: typeof migrate) => Layer.unwrapScoped(Effect.gen(function*() {
  const url = process.env.DATABASE_URL
  let connection: Connection
  let connections = 10
  if (url !== undefined && url !== "") {
    const admin = parseDatabaseUrl(url)
    const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
    yield* Effect.acquireRelease(
      Effect.promise(() => adminQuery(admin, `create database ${name}`)),
      () => Effect.promise(() => adminQuery(admin, `drop database if exists ${name} with (force)`).catch(() => undefined))
    )
    connection = { ...admin, database: name }
  } else {
    connection = yield* embeddedConnection({})
    connections = EMBEDDED_CONNECTIONS
  }
  return Layer.effectDiscard(run).pipe(Layer.provideMerge(pgLayer(connection, connections)))
}))

export const TestDatabase = database(migrate)

/**
 * A fresh database migrated up to `migration` (excluded), for a test of what that
 * migration does to rows written before it; `migrate` then runs the rest.
 */
export const TestDatabaseBefore = (migration: keyof typeof migrations) =>
  database(Migrator.make({})({
    loader: Migrator.fromRecord(Object.fromEntries(Object.entries(migrations).filter(([name]) => name < migration))),
    table: "platform_migrations"
  }))

/** Runs raw SQL in tests (fixtures and assertions on rows written). */
export const sql = SqlClient.SqlClient
