import { Effect } from "effect"
import type pg from "pg"
import { dbPoolConnections, dbPoolMax, dbPoolWaiting } from "./metrics.js"

const pools = new Map<string, pg.Pool>()

/**
 * Reports a pg pool under `name` (app, engine, inbound) in the pool gauges while the
 * scope lasts; read at scrape time (`samplePools`), nothing is done per query.
 */
export const trackPool = (name: string, pool: pg.Pool) =>
  Effect.acquireRelease(
    Effect.sync(() => void pools.set(name, pool)),
    () => Effect.sync(() => void (pools.get(name) === pool && pools.delete(name)))
  )

/** Sets the pool gauges from the tracked pools' counters. */
export const samplePools = () => {
  dbPoolConnections.reset()
  dbPoolWaiting.reset()
  dbPoolMax.reset()
  for (const [name, pool] of pools) {
    dbPoolConnections.labels(name, "in_use").set(pool.totalCount - pool.idleCount)
    dbPoolConnections.labels(name, "idle").set(pool.idleCount)
    dbPoolWaiting.labels(name).set(pool.waitingCount)
    dbPoolMax.labels(name).set(pool.options.max ?? 10)
  }
}
