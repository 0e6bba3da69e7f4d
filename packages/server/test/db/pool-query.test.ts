import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { PgPool, poolQuery, scopedPool } from "../../src/db/client.js"
import { API_BOUNDS } from "../../src/db/statement-bounds.js"
import { TestDatabase } from "../support/database.js"

describe("poolQuery", () => {
  it.scoped("a named statement whose columns a migration changed runs again on a fresh connection", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const shared = yield* PgPool
      // One connection, so the second run meets the statement the first one prepared.
      const db = Option.getOrElse(yield* scopedPool(shared, { max: 1, settings: {}, bounds: API_BOUNDS }), () => shared)
      const table = `stale_plan_${Date.now().toString(36)}`
      yield* sql.unsafe(`create table ${table} (a int); insert into ${table} values (1)`)
      const run = poolQuery<Record<string, number>>(db, `probe_${table}`, `select * from ${table}`, [])
      expect(yield* run).toEqual([{ a: 1 }])
      yield* sql.unsafe(`alter table ${table} add column b int not null default 2`)
      expect(yield* run).toEqual([{ a: 1, b: 2 }])
      expect(yield* run).toEqual([{ a: 1, b: 2 }])
    }).pipe(Effect.provide(Layer.orDie(TestDatabase))))
})
