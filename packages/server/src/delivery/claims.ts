import { NORMALIZED_STUCK_LEASE_SECONDS } from "@platform/shared"
import { Effect } from "effect"
import type { EngineSqlShape } from "./engine-sql.js"
import { deliveryEnvelope } from "../outbox/envelope.js"

/**
 * A delivery row claimed for sending (status delivering). Its subscription comes
 * as a version only (updated_at, in microseconds): what sending needs of it (URL,
 * headers, keys) is cached per version (requests.ts), read again when it changes.
 */
export interface ClaimedRow {
  readonly id: number
  readonly subscription_id: number
  readonly event_id: string
  readonly event_type: string
  readonly conversation_peer: string | null
  readonly attempts: number
  /** The body to send (stored as sent: migration 0011); null when its event is gone (requests.ts, unsendable). */
  readonly envelope: string | null
  readonly sub_version: number
  /** The span that caused its event (a `traceparent`), which its attempts link to; null without tracing. */
  readonly trace_parent?: string | null
}

/** A subscription's version as claims return it: updated_at in microseconds (an int8, no date to parse). */
export const SUBSCRIPTION_VERSION = "(extract(epoch from s.updated_at) * 1000000)::int8"

// Every claim returns the same row shape: the UPDATE ... RETURNING of the claimed rows
// (a CTE named `claimed`), with their payloads and their subscriptions' versions.
export const CLAIMED_COLUMNS =
  "w.id, w.subscription_id, w.event_id, w.event_type, w.conversation_peer, w.attempts, w.envelope, w.trace_parent"
export const WITH_SUBSCRIPTION = `select c.id, c.subscription_id, c.event_id, c.event_type, c.conversation_peer,
    c.attempts, ${deliveryEnvelope("c")}::text as envelope, ${SUBSCRIPTION_VERSION} as sub_version, c.trace_parent
  from claimed c join webhook_subscriptions s on s.id = c.subscription_id
  order by c.id`

/**
 * The claim statements of the dispatcher, each ONE statement: due rows locked with
 * FOR UPDATE SKIP LOCKED (so any number of claimers and processes run side by side)
 * and set delivering under a lease (delivering_since, the time claimed) held by
 * `holder`, this process (holder.ts).
 */
export const makeClaims = ({ prepared, sql }: EngineSqlShape, holder: number) => {
  const claimedColumns = sql.literal(CLAIMED_COLUMNS)
  const withSubscription = sql.literal(WITH_SUBSCRIPTION)
  /** The end of a claim: the rows in `due` leased to this process, returned with their subscription. */
  const leaseDue = (now: Date) => sql`
      claimed as (
        update webhook_deliveries w
        set status = 'delivering', delivering_since = ${now}, holder = ${holder}, updated_at = ${now}
        from due where w.id = due.id
        returning ${claimedColumns}
      )
      ${withSubscription}`

  /** The general claim: due rows in due order; a message.* row waits behind an open earlier row of its conversation. */
  const claim = (now: Date, batchSize: number) => {
    const stale = new Date(now.getTime() - NORMALIZED_STUCK_LEASE_SECONDS * 1000)
    return prepared("engine_claim", sql<ClaimedRow>`
      with due as (
        select d.id
        from webhook_deliveries d
        join webhook_subscriptions s on s.id = d.subscription_id
        where d.status = 'pending' and d.next_retry_at <= ${now}
          and s.is_active and not s.is_paused
          and (d.conversation_peer is null or not exists (
            select 1 from webhook_deliveries p
            where p.subscription_id = d.subscription_id
              and p.conversation_peer = d.conversation_peer
              and p.id < d.id
              and p.status in ('pending', 'delivering')
              and not (p.status = 'delivering' and p.delivering_since < ${stale})
          ))
        -- next_retry_at alone: the order of webhook_deliveries_due_idx, so the scan stops
        -- at the LIMIT instead of testing (and sorting) every pending row first.
        order by d.next_retry_at
        limit ${batchSize}
        for update of d skip locked
      ),
      ${leaseDue(now)}`).pipe(Effect.orDie)
  }

  // The head (oldest open row) of each probed (subscription, peer), when it is pending
  // and due: after a record, the row whose turn came; after fan-out, a conversation's
  // first row. One probe of webhook_deliveries_order_idx per pair instead of the
  // general claim's walk over every blocked row (which, with thousands of
  // conversations waiting on their heads, is most of the table).
  const claimHeads = (now: Date, subscriptions: ReadonlyArray<number>, peers: ReadonlyArray<string>, limit: number) =>
    prepared("engine_claim_heads", sql<ClaimedRow>`
      with pairs as (
        select distinct subscription_id, peer
        from unnest(${subscriptions}::bigint[], ${peers}::text[]) as u(subscription_id, peer)
      ),
      heads as (
        select h.id from pairs
        cross join lateral (
          select o.id, o.status from webhook_deliveries o
          where o.subscription_id = pairs.subscription_id and o.conversation_peer = pairs.peer
            and o.status in ('pending', 'delivering')
          order by o.id
          limit 1
        ) h
        where h.status = 'pending'
      ),
      due as (
        select d.id
        from webhook_deliveries d
        join webhook_subscriptions s on s.id = d.subscription_id
        -- By primary key (= any of an array), whatever the statistics say of the backlog.
        -- The tests are written "is true" so that they prove no partial index's predicate
        -- and make no index condition: a plan made for any values (engine-sql.ts) that
        -- believed few rows pending walked all of webhook_deliveries_due_idx instead.
        where d.id = any(array(select id from heads))
          and (d.status = 'pending') is true and (d.next_retry_at <= ${now}) is true
          and s.is_active and not s.is_paused
        order by d.id
        limit ${limit}
        for update of d skip locked
      ),
      ${leaseDue(now)}`).pipe(Effect.orDie)

  // A worker that hung past the 30 s lease leaves rows in delivering, and so does one that
  // died; a dead holder's rows (`dead`, holder.ts) are taken without waiting for those 30 s.
  // They are taken again with a fresh lease. Rare, so kept off the hot claim query; without
  // dead holders, a range of webhook_deliveries_lease_idx (usually empty), with them, its
  // rows in flight (what every process holds, a few hundred each).
  const reclaim = (now: Date, batchSize: number, dead: ReadonlyArray<number>) => {
    const stale = new Date(now.getTime() - NORMALIZED_STUCK_LEASE_SECONDS * 1000)
    // "delivering_since <= now": the index condition that keeps the scan on the lease index.
    const expired = dead.length === 0
      ? sql`d.delivering_since < ${stale}`
      : sql`d.delivering_since <= ${now} and (d.delivering_since < ${stale} or d.holder = any(${dead}::bigint[]))`
    return sql<ClaimedRow>`
      with due as (
        select d.id from webhook_deliveries d
        join webhook_subscriptions s on s.id = d.subscription_id
        where d.status = 'delivering' and ${expired} and s.is_active and not s.is_paused
        order by d.id
        limit ${batchSize}
        for update of d skip locked
      ),
      claimed as (
        update webhook_deliveries w set delivering_since = ${now}, holder = ${holder}, updated_at = ${now}
        from due where w.id = due.id
        returning ${claimedColumns}
      )
      ${withSubscription}`
  }
  const claimExpired = (now: Date, batchSize: number, dead: ReadonlyArray<number> = []) =>
    prepared(dead.length === 0 ? "engine_claim_expired" : "engine_claim_dead", reclaim(now, batchSize, dead)).pipe(Effect.orDie)

  // A stop that could not wait for these rows' POSTs (pump.ts): pending again and due at
  // once, for this or another process, instead of waiting out the 30 s lease. Not an
  // attempt: none was recorded. A row whose lease has moved on (another claimer) is not ours.
  const release = (rows: ReadonlyArray<{ readonly id: number; readonly lease: Date }>) =>
    rows.length === 0 ? Effect.void : sql`
      update webhook_deliveries d
      set status = 'pending', delivering_since = null, next_retry_at = least(d.next_retry_at, now()), updated_at = now()
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(id bigint, lease timestamptz)
      where d.id = r.id and d.status = 'delivering' and d.delivering_since = r.lease`.pipe(Effect.orDie, Effect.asVoid)

  return { claim, claimHeads, claimExpired, release } as const
}
