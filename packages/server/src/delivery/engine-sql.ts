import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { PgPool, poolQuery, scopedPool } from "../db/client.js"
import { ENGINE_BOUNDS } from "../db/statement-bounds.js"
import { trackPool } from "../telemetry/db-pools.js"

/**
 * Index scans only, and plans made once per connection.
 * - The engine's statements take the first rows of a backlog in index order
 *   (`order by id limit n`, `order by next_retry_at limit n`) or probe rows by key.
 *   When the statistics lag behind a backlog (events written faster than
 *   autovacuum analyzes), the planner estimates a handful of rows and reads the
 *   WHOLE backlog with a bitmap scan, then sorts it to keep the first n: measured
 *   with auto_explain during bench:delivery, 3,457-6,000 unfanned events read per
 *   fan-out of 100-156, and 6,488 pending deliveries per claim of 100.
 * - With only index scans to choose from, one generic plan serves every run of a
 *   statement, so the engine's statements are named and planned once per
 *   connection instead of at every run.
 */
const ENGINE_PLANNER = { enable_seqscan: "off", enable_bitmapscan: "off", plan_cache_mode: "force_generic_plan" }

/** Fan-out (1), the claimer (1), the recorders (2), the lease reclaimer and a spare (2). */
const ENGINE_CONNECTIONS = 6

export interface EngineSqlShape {
  /** The application's client: builds the statements, and runs the few that are not `prepared`. */
  readonly sql: SqlClient.SqlClient
  /** Runs `statement` as the named prepared statement `name` on the engine's connections (embedded: as it is). */
  readonly prepared: <A extends object>(
    name: string,
    statement: Statement.Statement<A>
  ) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
}

/**
 * The database of the delivery engine's statements (fan-out, claims, record): its
 * own connections that plan with ENGINE_PLANNER, beside the application's. On
 * embedded PGlite (one session for every client) statements run on the application's client.
 */
export class EngineSql extends Context.Tag("@platform/server/EngineSql")<EngineSql, EngineSqlShape>() {
  static readonly Default = Layer.scoped(
    EngineSql,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const own = yield* scopedPool(yield* PgPool, { max: ENGINE_CONNECTIONS, settings: ENGINE_PLANNER, bounds: ENGINE_BOUNDS })
      if (Option.isSome(own)) yield* trackPool("engine", own.value.pool)
      return {
        sql,
        prepared: Option.match(own, {
          onNone: () => <A extends object>(_name: string, statement: Statement.Statement<A>) => statement,
          onSome: (db) => <A extends object>(name: string, statement: Statement.Statement<A>) => {
            const [text, params] = statement.compile()
            return poolQuery<A>(db, name, text, params)
          }
        })
      } satisfies EngineSqlShape
    })
  )
}
