/**
 * The connection pools of the safe HTTP client, cached per (origin, pinned address).
 *
 * Why the connection is PINNED: `checkUrl` resolves the hostname once and
 * checks every address. If the client then resolved the name again, an
 * attacker-controlled DNS server could answer the second query with 127.0.0.1
 * or 169.254.169.254 (DNS rebinding, a TTL of 0 is enough). So the connection
 * is made to the checked `pinned` address only: each undici Pool is built with
 * a `connect.lookup` that ignores DNS and returns that address, while the URL
 * keeps the original hostname, so the Host header and TLS SNI / certificate
 * verification still use the real name.
 *
 * Throughput: Pools are cached per (origin, pinned address) in a bounded LRU,
 * so thousands of deliveries per second to one receiver reuse keep-alive
 * connections instead of opening one per request. Requests beyond a pool's
 * connections wait for a turn (connection-gate.ts) before their deadline starts.
 */
import type { LookupAddress, LookupOptions } from "node:dns"
import { Pool } from "undici"
import { ConnectionGates } from "./connection-gate.js"
import { classify, type SafeHttpError, SafeHttpTimeout } from "./safe-http-errors.js"
import type { CheckedTarget } from "./ssrf.js"

const MAX_POOLS = 256
const CONNECTIONS_PER_ORIGIN = 128
const KEEP_ALIVE_MS = 30_000
const CONNECT_TIMEOUT_MS = 10_000

const pools = new Map<string, Pool>()

/** Turns at each pool's connections: a deadline starts when its request can be written (connection-gate.ts). */
export const turns = new ConnectionGates(CONNECTIONS_PER_ORIGIN)

export const poolKey = (target: CheckedTarget) => `${target.url.protocol}//${target.url.host}|${target.pinned}`

/**
 * Why an exchange got no turn at its pool's connections: it was aborted, or it waited
 * longer than its timeout (the wait is bounded so that a wait and the exchange after it
 * stay within twice the timeout, inside a delivery's 30 s lease).
 */
export const noTurn = (url: string, timeoutMs: number, controller: AbortController): SafeHttpError =>
  controller.signal.aborted
    ? classify(controller.signal.reason, url, false, timeoutMs)
    : new SafeHttpTimeout({
      url,
      timeoutMs,
      reason: `no connection to the receiver free within ${timeoutMs} ms (all ${CONNECTIONS_PER_ORIGIN} busy)`
    })

/** A `net.connect` lookup that answers every query with the pinned address only. */
const pinnedLookup = (pinned: string, family: 4 | 6) =>
  (
    _hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void
  ): void => {
    if (options.all === true) callback(null, [{ address: pinned, family }])
    else callback(null, pinned, family)
  }

export const poolFor = (target: CheckedTarget, key: string = poolKey(target)): Pool => {
  const cached = pools.get(key)
  if (cached !== undefined && !cached.closed && !cached.destroyed) {
    pools.delete(key) // LRU: move to the back
    pools.set(key, cached)
    return cached
  }
  const pool = new Pool(target.url.origin, {
    connections: CONNECTIONS_PER_ORIGIN,
    pipelining: 1,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    // The per-request deadline (AbortSignal) is the real limit; these are backstops.
    headersTimeout: 5 * 60_000,
    bodyTimeout: 5 * 60_000,
    connect: { timeout: CONNECT_TIMEOUT_MS, lookup: pinnedLookup(target.pinned, target.family) }
  })
  pools.delete(key)
  pools.set(key, pool)
  while (pools.size > MAX_POOLS) {
    const oldest = pools.entries().next()
    if (oldest.done) break
    pools.delete(oldest.value[0])
    // Graceful: requests still running on the evicted pool finish first.
    oldest.value[1].close().catch(() => undefined)
  }
  return pool
}

/** Closes every cached connection pool (shutdown, tests). */
export const closeSafeHttpPools = (): Promise<void> => {
  const all = [...pools.values()]
  pools.clear()
  return Promise.all(all.map((pool) => pool.close().catch(() => undefined))).then(() => undefined)
}

/** How many connection pools are cached (one per origin and pinned address). */
export const safeHttpPoolCount = (): number => pools.size
