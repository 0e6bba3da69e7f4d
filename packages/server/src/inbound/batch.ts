import type { ForwardRow, InboundPlan, MessageRow, StatusRow } from "./plan.js"

/** A raw-forward row written by this POST, with what the inline attempt needs to send it. */
export interface CreatedDelivery {
  readonly id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number
  readonly attempts: number
  readonly body: string
  readonly webhook_url: string
  readonly webhook_secret_encrypted: Uint8Array | null
  /** The POST's span (a `traceparent`); null without tracing. */
  readonly trace_parent?: string | null
}

export interface PersistResult {
  readonly inserted: number
  /** Some user message was refused by the inbound quota (nothing of it stored or forwarded). */
  readonly quotaExceeded: boolean
  /**
   * Status callbacks naming no recorded message: parked (no event now) until the
   * send that caused them is recorded, dropped after PARKED_STATUS_TTL_MINUTES.
   */
  readonly unknownStatuses: ReadonlyArray<string>
  readonly deliveries: ReadonlyArray<CreatedDelivery>
  /**
   * Events written that wait for the fan-out. An event of an account with no
   * active subscription is written already fanned out (nothing could receive it:
   * a subscription only gets events that occur after it exists).
   */
  readonly events: number
}

/*
 * Group commit for /webhook/incoming. The statement's cost is dominated by
 * starting its executor (a few hundred plan nodes), not by its rows: ten
 * messages in one statement cost Postgres about what two cost one by one. So
 * POSTs that arrive while the statements before them run are merged into one
 * plan, written by one statement, and each POST is answered from its own share
 * of the result after the common commit.
 *
 * Every row carries `p`, the index of its POST in the batch; `i` (the order of
 * rows, which decides dedupe winners and event order) is renumbered so that an
 * earlier POST's rows come first, as if the POSTs had run one after another.
 */

export interface BatchedPlan extends InboundPlan {
  readonly messages: ReadonlyArray<MessageRow & { readonly p: number }>
  readonly statuses: ReadonlyArray<StatusRow & { readonly p: number }>
  readonly forwards: ReadonlyArray<ForwardRow & { readonly p: number }>
}

/** The most POSTs one statement carries. */
export const MAX_BATCH = 64

const nextIndex = (rows: ReadonlyArray<{ readonly i: number }>, from: number) =>
  rows.reduce((max, r) => Math.max(max, r.i + 1), from)

/** One plan out of several, rows renumbered in POST order and tagged with their POST. */
export const mergePlans = (plans: ReadonlyArray<InboundPlan>): BatchedPlan => {
  if (plans.length === 1) {
    const [plan] = plans as [InboundPlan]
    return {
      ...plan,
      messages: plan.messages.map((m) => ({ ...m, p: 0 })),
      statuses: plan.statuses.map((s) => ({ ...s, p: 0 })),
      forwards: plan.forwards.map((f) => ({ ...f, p: 0 }))
    }
  }
  const messages: Array<MessageRow & { p: number }> = []
  const statuses: Array<StatusRow & { p: number }> = []
  const forwards: Array<ForwardRow & { p: number }> = []
  let rowBase = 0
  let forwardBase = 0
  plans.forEach((plan, p) => {
    for (const m of plan.messages) messages.push({ ...m, i: m.i + rowBase, p })
    for (const s of plan.statuses) statuses.push({ ...s, i: s.i + rowBase, p })
    for (const f of plan.forwards) forwards.push({ ...f, i: f.i + forwardBase, p })
    rowBase = nextIndex(plan.statuses, nextIndex(plan.messages, rowBase))
    forwardBase = nextIndex(plan.forwards, forwardBase)
  })
  return { routed: true, messages, statuses, templates: [], qualities: [], forwards }
}

/**
 * Whether a plan may share a statement with others: template and quality
 * updates are rare and stay on their own (they resolve one row each and their
 * events compare against the row's previous state).
 */
export const isBatchable = (plan: InboundPlan): boolean => plan.templates.length === 0 && plan.qualities.length === 0

const statusKeys = (plan: InboundPlan) => plan.statuses.map((s) => `${s.channel_id}|${s.mid}`)

/**
 * Splits POSTs into consecutive groups that may each run as one statement: two
 * status callbacks for the same message (delivered, then read) must not be
 * merged, since one statement keeps only the furthest status and the earlier
 * one's event would be lost; the later POST goes to the next group instead.
 */
export const groupsOf = <A extends { readonly plan: InboundPlan }>(items: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> => {
  const groups: Array<Array<A>> = []
  let current: Array<A> = []
  let seen = new Set<string>()
  for (const item of items) {
    const keys = statusKeys(item.plan)
    if (current.length > 0 && keys.some((k) => seen.has(k))) {
      groups.push(current)
      current = []
      seen = new Set()
    }
    current.push(item)
    for (const k of keys) seen.add(k)
  }
  if (current.length > 0) groups.push(current)
  return groups
}

/** What one statement answered for the whole batch. */
export interface BatchResult {
  /** The POST index of every message inserted. */
  readonly inserted: ReadonlyArray<number>
  readonly refused: boolean
  readonly unknownStatuses: ReadonlyArray<string>
  readonly deliveries: ReadonlyArray<CreatedDelivery>
  readonly events: number
}

/** Each POST's part of a batch's result. */
export const shares = (plans: ReadonlyArray<InboundPlan>, result: BatchResult): ReadonlyArray<PersistResult> => {
  if (plans.length === 1) {
    return [{
      inserted: result.inserted.length,
      quotaExceeded: result.refused,
      unknownStatuses: result.unknownStatuses,
      deliveries: result.deliveries,
      events: result.events
    }]
  }
  // A raw-forward row goes back to a POST that asked for its channel and body
  // (identical requests are interchangeable).
  const byKey = new Map<string, Array<CreatedDelivery>>()
  for (const d of result.deliveries) {
    const key = `${d.platform_channel_id}|${d.body}`
    const list = byKey.get(key)
    if (list === undefined) byKey.set(key, [d])
    else list.push(d)
  }
  const unknown = new Set(result.unknownStatuses)
  return plans.map((plan, p) => ({
    inserted: result.inserted.filter((q) => q === p).length,
    quotaExceeded: result.refused,
    unknownStatuses: [...new Set(plan.statuses.filter((s) => unknown.has(s.mid)).map((s) => s.mid))],
    deliveries: plan.forwards.flatMap((f) => {
      const d = byKey.get(`${f.channel_id}|${f.body}`)?.shift()
      return d === undefined ? [] : [d]
    }),
    events: result.events
  }))
}
