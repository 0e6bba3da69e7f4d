import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { EMBEDDED_CONNECTIONS, embeddedConnection, migrate, parseDatabaseUrl, pgLayer, type Connection } from "../../src/db/client.js"

const adminQuery = async (connection: Connection, text: string) => {
  const client = new pg.Client({ ...connection, user: connection.username, database: connection.database })
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
export const TestDatabase = Layer.unwrapScoped(Effect.gen(function*() {
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
  return Layer.effectDiscard(migrate).pipe(Layer.provideMerge(pgLayer(connection, connections)))
}))

/** Runs raw SQL in tests (fixtures and assertions on rows written). */
export const sql = SqlClient.SqlClient
