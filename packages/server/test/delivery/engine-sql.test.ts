import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PgPool } from "../../src/db/client.js"
import { EngineSql } from "../../src/delivery/engine-sql.js"
import { EngineDatabase } from "../support/delivery.js"

const planner = (sql: SqlClient.SqlClient) =>
  sql<{ seq: string; bitmap: string; db: string }>`
    select current_setting('enable_seqscan') as seq, current_setting('enable_bitmapscan') as bitmap,
           current_database() as db`.pipe(Effect.map((rows) => rows[0]!))

describe("EngineSql", () => {
  it.scoped("plans the engine's statements with index scans only, on the application's database (PGlite: its one session)", () =>
    Effect.gen(function*() {
      const shared = yield* planner(yield* SqlClient.SqlClient)
      const engine = yield* planner(yield* EngineSql)
      expect(shared).toMatchObject({ seq: "on", bitmap: "on" })
      if ((yield* PgPool).embedded) {
        expect(engine).toEqual(shared)
        return
      }
      expect(engine).toEqual({ seq: "off", bitmap: "off", db: shared.db })
    }).pipe(Effect.provide(EngineSql.Default.pipe(Layer.provideMerge(EngineDatabase), Layer.orDie))))
})
