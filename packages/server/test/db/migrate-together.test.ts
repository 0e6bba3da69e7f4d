import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { type Connection, embeddedConnection, migrateUnbounded, parseDatabaseUrl } from "../../src/db/client.js"
import { migrations } from "../../src/db/migrations/index.js"

const statement = async (connection: Connection, text: string) => {
  const client = new pg.Client({ ...connection, user: connection.username, database: connection.database })
  client.on("error", () => {})
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

/** An empty database: a new one on the server `DATABASE_URL` names (dropped afterwards), or a fresh embedded PGlite. */
const emptyDatabase = Effect.gen(function*() {
  const url = process.env.DATABASE_URL
  if (url === undefined || url === "") return { connection: yield* embeddedConnection({}), processes: 1 }
  const admin = parseDatabaseUrl(url)
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  yield* Effect.acquireRelease(
    Effect.promise(() => statement(admin, `create database ${name}`)),
    () => Effect.promise(() => statement(admin, `drop database if exists ${name} with (force)`).catch(() => undefined))
  )
  // PostgreSQL: as many migrators as a deployment starting four processes and more at once.
  return { connection: { ...admin, database: name }, processes: 6 }
})

describe("processes starting together on an empty database", () => {
  it.scoped("each migrates or waits for the one migrating: none fails, and every migration is applied once", () =>
    Effect.gen(function*() {
      const { connection, processes } = yield* emptyDatabase
      // The embedded database serves one process (a second is refused at start), so there the
      // processes come one after the other; the later ones find nothing to do.
      yield* Effect.all(Array.from({ length: processes }, () => migrateUnbounded(connection)), { concurrency: "unbounded" })
      yield* migrateUnbounded(connection)
      const applied = yield* Effect.promise(() =>
        statement(connection, "select name, count(*)::int as n from platform_migrations group by name order by name")
      )
      expect(applied).toHaveLength(Object.keys(migrations).length)
      expect(applied.every((row) => row.n === 1)).toBe(true)
    }), 120_000)
})
