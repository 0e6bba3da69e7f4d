import { SqlClient } from "@effect/sql"
import { CATCH_ALL_EXCLUDED_EVENT_TYPES } from "@platform/shared"
import { Clock, Effect } from "effect"
import type { ClaimedRow } from "./dispatcher.js"
import { DeliveryWakeup } from "./wakeup.js"

/** Fan-out is serialized across processes so delivery ids follow event ids (per-peer order). */
const FAN_OUT_LOCK = 0x706c_6601

export interface FanOutResult {
  readonly events: number
  readonly deliveries: number
  readonly buffered: number
}

/**
 * Turns event rows (the outbox) into delivery rows: one per matching active,
 * unpaused subscription (channel-level or account-level; empty event_types is
 * catch-all except message.received). Buffered subscriptions get staging items
 * instead. One statement per batch: claim the events, insert the deliveries and
 * the items, mark the events fanned out.
 */
export class FanOut extends Effect.Service<FanOut>()("@platform/server/FanOut", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* DeliveryWakeup

    const runOnce = Effect.fn("FanOut.runOnce")(function*(batchSize: number = 500) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const excluded = [...CATCH_ALL_EXCLUDED_EVENT_TYPES]
      const direct = wakeup.direct()
      const reserved = direct?.reserve(batchSize) ?? 0
      // The advisory lock is an InitPlan evaluated once: a second fan-out (another
      // process) gets no rows instead of interleaving its batch with ours.
      const rows = yield* sql<FanOutResult & { readonly id: number | null }>`
        with ev as (
          select e.id, e.event_id, e.developer_account_id, e.platform_channel_id, e.event_type,
                 e.conversation_peer, e.envelope
          from events e
          where e.fanned_out_at is null and (select pg_try_advisory_xact_lock(${FAN_OUT_LOCK}))
          order by e.id
          limit ${batchSize}
          for update skip locked
        ),
        marked as (
          update events e set fanned_out_at = ${now} from ev where e.id = ev.id
        ),
        m as (
          select ev.*, s.id as subscription_id, s.buffer_window_seconds is not null as buffered
          from ev
          join webhook_subscriptions s
            on s.developer_account_id = ev.developer_account_id
           and s.is_active and not s.is_paused
           and (s.platform_channel_id is null or s.platform_channel_id = ev.platform_channel_id)
           and (ev.event_type = any(s.event_types)
                or (cardinality(s.event_types) = 0 and not (ev.event_type = any(${excluded}::text[]))))
        ),
        nb as (
          select m.*, case when m.event_type like 'message.%' then m.conversation_peer end as peer
          from m where not buffered
        ),
        -- Rows with no conversation to wait for may be inserted already claimed by
        -- the dispatcher of this process (up to the POST slots it reserved): they
        -- are committed before any POST, and their lease covers a crash.
        ins as (
          insert into webhook_deliveries
            (subscription_id, developer_account_id, platform_channel_id, event_id, event_type, conversation_peer,
             envelope, next_retry_at, status, delivering_since, created_at, updated_at)
          select subscription_id, developer_account_id, platform_channel_id, event_id, event_type, peer,
                 envelope, ${now}, case when direct then 'delivering' else 'pending' end,
                 case when direct then ${now}::timestamptz end, ${now}, ${now}
          from (
            select nb.*, peer is null and row_number() over (partition by peer is null order by id, subscription_id)
                                          <= ${reserved} as direct
            from nb
          ) x
          order by id, subscription_id
          returning id, subscription_id, event_id, event_type, conversation_peer, attempts, envelope, status
        ),
        claimed as (
          select i.id, i.subscription_id, i.event_id, i.event_type, i.conversation_peer, i.attempts, i.envelope,
                 s.target_url, s.custom_headers, s.secret_encrypted, s.previous_secret_encrypted,
                 s.previous_secret_expires_at, s.updated_at as sub_version
          from ins i join webhook_subscriptions s on s.id = i.subscription_id
          where i.status = 'delivering'
        ),
        buf as (
          insert into webhook_buffer_items
            (subscription_id, developer_account_id, platform_channel_id, event_type, event_id, envelope, created_at)
          select subscription_id, developer_account_id, platform_channel_id, event_type, event_id, envelope, ${now}
          from m where buffered
          order by id
          returning 1
        )
        select n.events, n.deliveries, n.buffered, c.*
        from (select (select count(*) from ev)::int as events,
                     (select count(*) from ins)::int as deliveries,
                     (select count(*) from buf)::int as buffered) n
        left join claimed c on true
        order by c.id`.pipe(
        Effect.onExit((exit) => exit._tag === "Failure" && direct !== undefined ? direct.start([], now, reserved) : Effect.void),
        Effect.orDie
      )
      const first = rows[0]
      const result: FanOutResult = first === undefined
        ? { events: 0, deliveries: 0, buffered: 0 }
        : { events: first.events, deliveries: first.deliveries, buffered: first.buffered }
      const claimed = rows.filter((r) => r.id !== null) as unknown as ReadonlyArray<ClaimedRow>
      if (direct !== undefined) yield* direct.start(claimed, now, reserved)
      if (result.deliveries > claimed.length) yield* wakeup.deliveriesWritten
      if (result.buffered > 0) yield* wakeup.bufferWritten
      return result
    })

    /** Fans out until no un-fanned event is left (or another process holds the fan-out). */
    const drain = Effect.fn("FanOut.drain")(function*(batchSize: number = 500) {
      let total = 0
      for (;;) {
        const r = yield* runOnce(batchSize)
        total += r.events
        if (r.events < batchSize) return total
      }
    })

    return { runOnce, drain } as const
  })
}) {}
