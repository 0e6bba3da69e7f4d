import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { PgPool, poolQuery, scopedPool } from "../../src/db/client.js"
import { makePrepared } from "../../src/db/prepared.js"
import { API_BOUNDS } from "../../src/db/statement-bounds.js"
import { TestDatabase } from "../support/database.js"

describe("makePrepared", () => {
  it.scoped("runs a sql statement as a named prepared statement (on PGlite, as written) with the same rows", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const shared = yield* PgPool
      // One connection, so the session that prepared the statement is the one asked about it.
      const db = Option.getOrElse(yield* scopedPool(shared, { max: 1, settings: {}, bounds: API_BOUNDS }), () => shared)
      const prepared = makePrepared(Option.some(db))
      const table = `prepared_${Date.now().toString(36)}`
      yield* sql.unsafe(`create table ${table} (id int primary key, note text)`)
      const insert = (id: number, note: string) =>
        prepared(sql<{ id: number; note: string }>`insert into ${sql(table)} (id, note) values (${id}, ${note}) returning id, note`)

      expect(yield* insert(1, "one")).toEqual([{ id: 1, note: "one" }])
      expect(yield* insert(2, "two")).toEqual([{ id: 2, note: "two" }])
      const named = yield* poolQuery<{ name: string; statement: string }>(
        db,
        `probe_${table}`,
        `select name, statement from pg_prepared_statements where statement like '%' || $1::text || '%' and name like 'hot_%'`,
        [table]
      )
      if (db.namedStatements) {
        expect(named).toHaveLength(1)
        expect(named[0]!.statement).toContain(table)
      } else {
        expect(named).toEqual([])
      }
      // A statement's error is the driver's, with its SQLSTATE, as from the SqlClient.
      const duplicate = yield* Effect.flip(insert(1, "again"))
      expect((duplicate.cause as { code?: string }).code).toBe("23505")
      expect(yield* sql`select id, note from ${sql(table)} order by id`).toEqual([{ id: 1, note: "one" }, { id: 2, note: "two" }])
    }).pipe(Effect.provide(Layer.orDie(TestDatabase))))

  it.scoped("inside a transaction the statement runs on the transaction's connection, and rolls back with it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const prepared = makePrepared(yield* Effect.serviceOption(PgPool))
      const table = `prepared_tx_${Date.now().toString(36)}`
      yield* sql.unsafe(`create table ${table} (id int primary key)`)
      const inside = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`insert into ${sql(table)} (id) values (1)`
        // Only the transaction's own connection sees the uncommitted row.
        const [row] = yield* prepared(sql<{ n: number }>`select count(*)::int as n from ${sql(table)}`)
        return yield* Effect.fail({ seen: row!.n })
      })).pipe(Effect.flip)
      expect(inside).toEqual({ seen: 1 })
      expect(yield* sql`select count(*)::int as n from ${sql(table)}`).toEqual([{ n: 0 }])
    }).pipe(Effect.provide(Layer.orDie(TestDatabase))))
})
