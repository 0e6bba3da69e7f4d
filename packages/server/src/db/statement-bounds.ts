import type pg from "pg"
import pgModule from "pg"

/**
 * How long a pool's statements may go unanswered. A database behind a network
 * partition (packets dropped, socket never closed) answers nothing and the socket
 * reports nothing for minutes, so without a bound a request or a worker would wait
 * for ever. Past `queryMs` pg fails the statement ("Query read timeout", a
 * connection fault: a request answers 503 database_unavailable, a worker backs
 * off) and `BoundedClient` drops its connection; `statementMs`, a little longer,
 * is the server's own bound (statement_timeout), so a statement the client gave
 * up on does not run on unseen.
 */
export interface StatementBounds {
  readonly queryMs: number
  readonly statementMs: number
  /** How long a checkout may wait for a connection (a free one, or a new one to connect). */
  readonly connectMs: number
}

/*
 * The application's pool serves the API and the periodic workers: every statement
 * of either is a key lookup or a bounded batch, answered in milliseconds. 5 s
 * plus up to 5 s waiting for a connection keeps a black-holed request within
 * ~10 s, under the usual 30 s of a load balancer or client.
 */
export const API_BOUNDS: StatementBounds = { queryMs: 5_000, statementMs: 6_000, connectMs: 5_000 }

/*
 * The inbound writer: a batch of Meta POSTs in one statement (a few ms); Meta
 * waits for the answer and retries a failure, so it fails as fast as the API.
 */
export const INBOUND_BOUNDS: StatementBounds = API_BOUNDS

/*
 * The delivery engine: claims and fan-out take up to a few hundred rows at a
 * time, and nobody waits on them; a longer bound spares them under load.
 */
export const ENGINE_BOUNDS: StatementBounds = { queryMs: 15_000, statementMs: 16_000, connectMs: 10_000 }

/*
 * TCP keepalive probes after 10 s idle: a connection whose peer vanished (a
 * failover to another host) is found dead by the kernel instead of kept in the
 * pool for good.
 */
const KEEPALIVE_DELAY_MS = 10_000

/** The pool settings of `bounds`: client-side (`query_timeout`, keepalive) and server-side (`statement_timeout`, except on embedded PGlite). */
export const boundedConfig = (bounds: StatementBounds, serverSide: boolean): pg.PoolConfig => ({
  keepAlive: true,
  keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  query_timeout: bounds.queryMs,
  connectionTimeoutMillis: bounds.connectMs,
  ...(serverSide ? { statement_timeout: bounds.statementMs } : {}),
  Client: BoundedClient
})

const READ_TIMEOUT = "Query read timeout"

/**
 * A pg client that destroys its connection when a statement's answer does not
 * come within `query_timeout`. pg fails the statement but keeps the connection,
 * the statement still pending on it: every later statement on that connection
 * would queue behind it and time out too, for as long as the socket stays open.
 * Ended, the connection is dropped by its pool, and the next checkout
 * connects afresh (and fails at once or within `connectMs` while the database is
 * still away).
 */
export class BoundedClient extends pgModule.Client {
  // Any: pg.Client.query has a dozen overloads, and each is passed through as it is.
  override query(...args: Array<any>): any {
    const last = args.length - 1
    const callback = args[last]
    if (typeof callback === "function") {
      args[last] = (err: Error | undefined, result: unknown) => {
        if (err?.message === READ_TIMEOUT) this.dropConnection()
        callback(err, result)
      }
      return super.query(...(args as [never]))
    }
    const result = super.query(...(args as [never])) as unknown
    return result instanceof Promise
      ? result.catch((err: Error) => {
        if (err?.message === READ_TIMEOUT) this.dropConnection()
        throw err
      })
      : result
  }

  /*
   * Ending (not only destroying the socket) marks the client as ending at once, so
   * the pool drops it when it is handed back right after, and its close is not
   * reported as an 'error' to whoever holds it next.
   */
  private dropConnection() {
    this.end(() => undefined)
  }
}
