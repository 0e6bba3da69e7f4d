import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PgPool } from "../../src/db/client.js"
import { EngineSql } from "../../src/delivery/engine-sql.js"
import { EngineDatabase } from "../support/delivery.js"

interface Planner {
  readonly seq: string
  readonly bitmap: string
  readonly cache: string
  readonly db: string
  readonly n: number
}

describe("EngineSql", () => {
  it.scoped("runs the engine's statements on connections that plan once, with index scans only (PGlite: its one session)", () =>
    Effect.gen(function*() {
      const { prepared, sql } = yield* EngineSql
      const probe = (n: number) =>
        sql<Planner>`select current_setting('enable_seqscan') as seq, current_setting('enable_bitmapscan') as bitmap,
                            current_setting('plan_cache_mode') as cache, current_database() as db, ${n}::int as n`
      const [shared] = yield* (yield* SqlClient.SqlClient)<Planner>`
        select current_setting('enable_seqscan') as seq, current_setting('enable_bitmapscan') as bitmap,
               current_setting('plan_cache_mode') as cache, current_database() as db, 0 as n`
      expect(shared).toMatchObject({ seq: "on", bitmap: "on", cache: "auto" })
      // One name, planned once per connection, bound with each run's values.
      const runs = yield* Effect.forEach([1, 2, 3], (n) => prepared("engine_probe", probe(n)))
      expect(runs.map((rows) => rows[0]!.n)).toEqual([1, 2, 3])
      const engine = runs[0]![0]!
      if ((yield* PgPool).embedded) {
        expect(engine).toEqual({ ...shared, n: 1 })
        return
      }
      expect(engine).toEqual({ seq: "off", bitmap: "off", cache: "force_generic_plan", db: shared!.db, n: 1 })
    }).pipe(Effect.provide(EngineSql.Default.pipe(Layer.provideMerge(EngineDatabase), Layer.orDie))))
})
