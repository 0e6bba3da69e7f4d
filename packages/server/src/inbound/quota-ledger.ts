import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { outageWatch } from "../db/outage.js"
import type { InboundPlan } from "./plan.js"

/*
 * The inbound quota without a hot row. Counting every message with an UPDATE of
 * the account's usage_counters row inside the inbound statement serializes all
 * of that account's POSTs on one row lock held through each commit's fsync (a
 * few hundred messages/s at best). So, far below the cap, the statement only
 * admits the messages and this ledger adds them to the counter in one UPDATE
 * every 100 ms (a crash may forget up to that much usage, never over-count).
 * Messages admitted that way are reserved until their statement ends, so this
 * process never admits past the margin however many statements are in flight.
 * Near the cap (within 5%, at least 50 messages: the other processes' share),
 * on a cache miss and every 5 s, the statement consumes exactly with the
 * conditional upsert that can never overshoot; those exact answers refresh the
 * cached counter.
 */
const FLUSH_INTERVAL = Duration.millis(100)
const CACHE_TTL_MS = 5_000
const marginOf = (max: number) => Math.max(50, Math.ceil(max * 0.05))

interface CachedUsage {
  used: number
  readonly max: number
  readonly period: string
  readonly expires: number
}

/** The messages each account of the plan would consume. */
export const demandOf = (plan: InboundPlan): ReadonlyMap<number, number> => {
  const demand = new Map<number, number>()
  for (const m of plan.messages) if (m.kind === "message") demand.set(m.account_id, (demand.get(m.account_id) ?? 0) + 1)
  return demand
}

/** The quota ledger of one InboundStore; its flush runs every 100 ms while the store's scope is open, and once more as it closes. */
export const makeQuotaLedger = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const usage = new Map<number, CachedUsage>()
  let pending = new Map<string, { account: number; period: string; n: number }>()
  const unflushed = new Map<number, number>()
  const reserved = new Map<number, number>()

  const addTo = (map: Map<number, number>, account: number, n: number) => {
    const left = (map.get(account) ?? 0) + n
    if (left > 0) map.set(account, left)
    else map.delete(account)
  }

  const addPending = (account: number, period: string, n: number) => {
    const key = `${account}|${period}`
    const cur = pending.get(key)
    if (cur === undefined) pending.set(key, { account, period, n })
    else cur.n += n
    addTo(unflushed, account, n)
  }

  const flush = Effect.gen(function*() {
    if (pending.size === 0) return
    const batch = [...pending.values()]
    pending = new Map()
    const rows = yield* sql<{ developer_account_id: number; used: number }>`
      insert into usage_counters as u (developer_account_id, period, metric, used)
      select x.account, x.period::date, 'inbound_messages', x.n
      from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as x(account bigint, period text, n bigint)
      on conflict (developer_account_id, period, metric) do update set used = u.used + excluded.used
      returning developer_account_id, used`.pipe(
      Effect.onError(() => Effect.sync(() => {
        for (const b of batch) {
          const key = `${b.account}|${b.period}`
          const cur = pending.get(key)
          if (cur === undefined) pending.set(key, { ...b })
          else cur.n += b.n
        }
      }))
    )
    for (const b of batch) addTo(unflushed, b.account, -b.n)
    for (const r of rows) {
      const cached = usage.get(r.developer_account_id)
      if (cached !== undefined) cached.used = r.used
    }
  })
  yield* outageWatch("inbound usage flush").retrying(flush).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("inbound usage flush failed; retrying", cause)),
    Effect.zipRight(Effect.sleep(FLUSH_INTERVAL)),
    Effect.forever,
    Effect.forkScoped
  )
  yield* Effect.addFinalizer(() => flush.pipe(Effect.ignore))

  /** Accounts whose counter a POST running alone is reading exactly after its cached reading expired. */
  const rereading = new Set<number>()

  /**
   * Whether every account of the plan is far enough below its cap to be counted
   * after the fact; if so, its messages are reserved until `release`. When a
   * reading expires, ONE POST runs alone to read the counter again while the
   * others go on against the last reading: were they all to run alone, their
   * conditional upserts would queue on the account's counter row, each through
   * its commit (a burst of latency every 5 s).
   */
  const reserve = (demand: ReadonlyMap<number, number>, period: string): boolean => {
    const now = Date.now()
    for (const [account, n] of demand) {
      const cached = usage.get(account)
      if (cached === undefined || cached.period !== period) return false
      if (cached.expires <= now && !rereading.has(account)) return false
      const counted = cached.used + (unflushed.get(account) ?? 0) + (reserved.get(account) ?? 0)
      if (counted + n > cached.max - marginOf(cached.max)) return false
    }
    for (const [account, n] of demand) addTo(reserved, account, n)
    return true
  }
  const release = (demand: ReadonlyMap<number, number>) => {
    for (const [account, n] of demand) addTo(reserved, account, -n)
  }

  /** An exact consume's answer refreshes the cached counter, trusted until it expires. */
  const refresh = (account: number, used: number, max: number, period: string) => {
    usage.set(account, { used, max, period, expires: Date.now() + CACHE_TTL_MS })
  }

  return { addPending, refresh, reserve, release, rereading, flush } as const
})
