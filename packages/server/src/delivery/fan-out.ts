import { CATCH_ALL_EXCLUDED_EVENT_TYPES } from "@platform/shared"
import { Clock, Duration, Effect } from "effect"
import { type ClaimedRow, SUBSCRIPTION_VERSION } from "./claims.js"
import { EngineSql } from "./engine-sql.js"
import { DeliveryHolder } from "./holder.js"
import { DeliveryWakeup } from "./wakeup.js"

/** Fan-out is serialized across processes so delivery ids follow event ids (per-peer order). */
export const FAN_OUT_LOCK = 0x706c_6601

/** How long a dispatcher may free no POST slot before fan-out stops waiting for its room (see `drain`). */
const ROOM_WAIT = Duration.millis(100)

export interface FanOutResult {
  readonly events: number
  readonly deliveries: number
  readonly buffered: number
  /** Deliveries inserted already claimed and handed to this process's dispatcher. */
  readonly direct: number
  /** Unordered deliveries inserted pending because the dispatcher had no free slot for them. */
  readonly overflow: number
}

interface Counts {
  readonly events: number
  readonly deliveries: number
  readonly buffered: number
  /** Non-buffered rows without a conversation to wait for: the ones the dispatcher may take directly. */
  readonly unordered: number
  /** bigint[]: its elements arrive as strings. */
  readonly opened_subscriptions: ReadonlyArray<string> | null
  readonly opened_peers: ReadonlyArray<string> | null
}

/**
 * Turns event rows into delivery rows: one per matching active, unpaused
 * subscription (channel-level or account-level; empty event_types is catch-all
 * except message.received). Buffered subscriptions get staging items instead. One
 * statement per batch: take the oldest events of the outbox (event_outbox, filled
 * by a trigger on events: migration 0007) out of it, insert the deliveries and
 * the items.
 */
export class FanOut extends Effect.Service<FanOut>()("@platform/server/FanOut", {
  effect: Effect.gen(function*() {
    const { prepared, sql } = yield* EngineSql
    const wakeup = yield* DeliveryWakeup
    const holder = (yield* DeliveryHolder).id

    /**
     * One batch of up to `batchSize` events. With `reserve`, its unordered rows may be
     * inserted claimed, into POST slots of this process's dispatcher reserved for the
     * statement's duration (slots it cannot use for anything else meanwhile).
     */
    const runOnce = Effect.fn("FanOut.runOnce")(function*(batchSize: number = 500, reserve: boolean = true) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const excluded = [...CATCH_ALL_EXCLUDED_EVENT_TYPES]
      const direct = wakeup.direct()
      const reserved = reserve ? direct?.reserve(batchSize) ?? 0 : 0
      // The advisory lock is an InitPlan evaluated once: a second fan-out (another
      // process) gets no rows instead of interleaving its batch with ours. The DELETE
      // takes the rows (no FOR UPDATE pass first: a row lock per event, and a WAL
      // record each): a fan-out whose snapshot still shows rows that the previous
      // holder of the lock took and committed finds them deleted, and skips them.
      const rows = yield* prepared("engine_fan_out", sql<Counts & { readonly id: number | null }>`
        with taken as (
          delete from event_outbox o
          where o.event_row = any(array(
            select q.event_row from event_outbox q
            where (select pg_try_advisory_xact_lock(${FAN_OUT_LOCK}))
            order by q.event_row
            limit ${batchSize}))
          returning o.event_row
        ),
        -- By primary key (= any of an array): one plan serves every batch (engine-sql.ts),
        -- and a join could hash the whole events table.
        ev as (
          select e.id, e.event_id, e.developer_account_id, e.platform_channel_id, e.event_type,
                 e.conversation_peer, e.envelope, e.trace_parent
          from events e
          where e.id = any(array(select event_row from taken))
        ),
        m as (
          select ev.*, s.id as subscription_id, s.buffer_window_seconds is not null as buffered,
                 ${sql.literal(SUBSCRIPTION_VERSION)} as sub_version
          from ev
          join webhook_subscriptions s
            on s.developer_account_id = ev.developer_account_id
           and s.is_active and not s.is_paused
           and (s.platform_channel_id is null or s.platform_channel_id = ev.platform_channel_id)
           and (ev.event_type = any(s.event_types)
                or (cardinality(s.event_types) = 0 and not (ev.event_type = any(${excluded}::text[]))))
          -- Deliveries have no foreign key (see migration 0006): a subscription being
          -- deleted meanwhile waits for this statement, or is not matched.
          for key share of s
        ),
        nb as (
          select m.*, case when m.event_type like 'message.%' then m.conversation_peer end as peer
          from m where not buffered
        ),
        -- The rows to insert, their ids taken here (after the sort: Postgres evaluates a
        -- volatile output column after ORDER BY), so that the rows inserted claimed are
        -- returned from here with their event's envelope and their subscription's
        -- version, without reading either again. Rows with no conversation to wait for
        -- may be inserted already claimed by the dispatcher of this process (up to the
        -- POST slots it reserved): they are committed before any POST, and their lease
        -- covers a crash. The envelope stays in the event row (envelope.ts).
        batch as (
          select nextval((select pg_get_serial_sequence('webhook_deliveries', 'id'))) as delivery_id, y.*
          from (
            select nb.*, peer is null and row_number() over (partition by peer is null order by id, subscription_id)
                                          <= ${reserved} as direct
            from nb
          ) y
          order by y.id, y.subscription_id
        ),
        -- Read by nothing, run all the same (a data-modifying CTE always runs to completion).
        ins as (
          insert into webhook_deliveries
            (id, subscription_id, developer_account_id, platform_channel_id, event_id, event_type, conversation_peer,
             next_retry_at, status, delivering_since, holder, created_at, updated_at, trace_parent)
          overriding system value
          select delivery_id, subscription_id, developer_account_id, platform_channel_id, event_id, event_type, peer,
                 ${now}, case when direct then 'delivering' else 'pending' end,
                 case when direct then ${now}::timestamptz end, case when direct then ${holder}::int8 end,
                 ${now}, ${now}, trace_parent
          from batch
          order by delivery_id
        ),
        claimed as (
          select b.delivery_id as id, b.subscription_id, b.event_id, b.event_type, b.peer as conversation_peer,
                 0 as attempts, b.envelope::text as envelope, b.sub_version, b.trace_parent
          from batch b
          where b.direct
        ),
        -- Conversations this batch opens (no open row before it, as of this statement's
        -- snapshot, which does not show the rows inserted here): the dispatcher of this
        -- process probes their first row. Only a hint; the claim checks the order itself.
        opened as (
          select distinct b.subscription_id, b.peer
          from batch b
          where not b.direct and b.peer is not null
            and not exists (
              select 1 from webhook_deliveries p
              where p.subscription_id = b.subscription_id and p.conversation_peer = b.peer
                and p.status in ('pending', 'delivering')
            )
        ),
        buf as (
          insert into webhook_buffer_items
            (subscription_id, developer_account_id, platform_channel_id, event_type, event_id, envelope, created_at)
          select subscription_id, developer_account_id, platform_channel_id, event_type, event_id, envelope, ${now}
          from m where buffered
          order by id
          returning 1
        )
        select n.events, n.deliveries, n.buffered, n.unordered, o.opened_subscriptions, o.opened_peers, c.*
        from (select (select count(*) from ev)::int as events,
                     (select count(*) from batch)::int as deliveries,
                     (select count(*) from buf)::int as buffered,
                     (select count(*) from nb where peer is null)::int as unordered) n
        cross join (select array_agg(subscription_id order by subscription_id, peer) as opened_subscriptions,
                           array_agg(peer order by subscription_id, peer) as opened_peers
                    from opened) o
        left join claimed c on true
        order by c.id`).pipe(
        Effect.onExit((exit) => exit._tag === "Failure" && direct !== undefined ? direct.start([], now, reserved) : Effect.void),
        Effect.orDie
      )
      const first = rows[0]
      const claimed = rows.filter((r) => r.id !== null) as unknown as ReadonlyArray<ClaimedRow>
      const result: FanOutResult = first === undefined
        ? { events: 0, deliveries: 0, buffered: 0, direct: 0, overflow: 0 }
        : {
          events: first.events,
          deliveries: first.deliveries,
          buffered: first.buffered,
          direct: claimed.length,
          overflow: direct === undefined ? 0 : Math.max(0, first.unordered - claimed.length)
        }
      if (direct !== undefined) {
        yield* direct.start(claimed, now, reserved)
        const subscriptions = first?.opened_subscriptions ?? []
        const peers = first?.opened_peers ?? []
        direct.probe(subscriptions.map((subscription, i) => [Number(subscription), peers[i]!] as const))
      }
      // Rows left pending: other processes may take them. This process's dispatcher
      // needs waking only for unordered ones; the ordered ones are heads it was just
      // told to probe, or wait for a turn that a record of their pair hands over.
      if (result.deliveries > claimed.length) {
        yield* direct === undefined || result.overflow > 0 ? wakeup.deliveriesWritten : wakeup.deliveriesAnnounced
      }
      if (result.buffered > 0) yield* wakeup.bufferWritten
      return result
    })

    // Whether the last batch that wrote delivery rows had unordered ones, the ones this
    // process's dispatcher can take (assumed at first: with room, waiting for it costs nothing).
    let paced = true

    /**
     * Fans out until no un-fanned event is left (or another process holds the fan-out).
     * While the events are ones this process's dispatcher can take directly, each batch
     * first waits for room there and takes only as many events as there are free slots:
     * a row inserted claimed is sent at once, one inserted pending costs a claim
     * statement and a second UPDATE of the row. A dispatcher that frees no slot for
     * ROOM_WAIT is stalled: then batches are full again, and the rows pending.
     */
    const drain = Effect.fn("FanOut.drain")(function*(batchSize: number = 500) {
      let total = 0
      for (;;) {
        const direct = wakeup.direct()
        const free = paced && direct !== undefined ? yield* direct.room(ROOM_WAIT) : 0
        const limit = free > 0 ? Math.min(batchSize, free) : batchSize
        // A batch after one without unordered rows (message events: their rows wait for
        // their conversation's turn) reserves no slot: the claimer and the recorders' turns
        // keep them. Its unordered rows, if any, are inserted pending and pace the next batch.
        const r = yield* runOnce(limit, paced)
        // A batch without delivery rows (none left, none matched) says nothing of the next.
        if (r.deliveries > 0) paced = r.direct + r.overflow > 0
        total += r.events
        if (r.events < limit) return total
      }
    })

    return { runOnce, drain } as const
  })
}) {}
