import type pg from "pg"

let answered = 0

/** How many statements the database has answered in this process (any pool): a request outage ends once this moves. */
export const databaseAnswers = () => answered

/**
 * Counts every checkout of `pool` handed back healthy: its statements reached the
 * database and were answered (a lost connection, or one ended after a read timeout,
 * is handed back with an error or ending and is not counted).
 */
export const countAnswers = (pool: pg.Pool) => {
  pool.on("release", (err: Error | undefined, client: pg.PoolClient) => {
    const state = client as unknown as { _queryable?: boolean; _ending?: boolean }
    if (err === undefined && state._queryable !== false && state._ending !== true) answered++
  })
}
