import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { PgPool, scopedSqlClient } from "../db/client.js"

/**
 * Index scans only. The engine's statements take the first rows of a backlog in
 * index order (`order by id limit n`, `order by next_retry_at limit n`) or probe
 * rows by key. When the statistics lag behind a backlog (events written faster
 * than autovacuum analyzes), the planner estimates a handful of rows and reads the
 * WHOLE backlog with a bitmap scan, then sorts it to keep the first n: measured
 * with auto_explain during bench:delivery, 3,457-6,000 unfanned events read per
 * fan-out of 100-156, and 6,488 pending deliveries per claim of 100.
 */
const ENGINE_PLANNER = { enable_seqscan: "off", enable_bitmapscan: "off" }

/** Fan-out (1), the claimer (1), the recorders (2), a dispatch pass or lease reclaim (2). */
const ENGINE_CONNECTIONS = 6

/**
 * The SqlClient of the delivery engine's statements (fan-out, claims, record): its
 * own connections that plan with ENGINE_PLANNER, beside the application's. On
 * embedded PGlite (one session for every client) it is the application's client.
 */
export class EngineSql extends Context.Tag("@platform/server/EngineSql")<EngineSql, SqlClient.SqlClient>() {
  static readonly Default = Layer.scoped(
    EngineSql,
    Effect.gen(function*() {
      const shared = yield* SqlClient.SqlClient
      const own = yield* scopedSqlClient(yield* PgPool, { max: ENGINE_CONNECTIONS, settings: ENGINE_PLANNER })
      return Option.getOrElse(own, () => shared)
    }).pipe(Effect.orDie)
  )
}
