import { SqlClient } from "@effect/sql"
import { CATCH_ALL_EXCLUDED_EVENT_TYPES } from "@platform/shared"
import { Clock, Effect } from "effect"
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
      // The advisory lock is an InitPlan evaluated once: a second fan-out (another
      // process) gets no rows instead of interleaving its batch with ours.
      const [row] = yield* sql<FanOutResult>`
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
        ins as (
          insert into webhook_deliveries
            (subscription_id, developer_account_id, platform_channel_id, event_id, event_type, conversation_peer,
             envelope, next_retry_at, created_at, updated_at)
          select subscription_id, developer_account_id, platform_channel_id, event_id, event_type,
                 case when event_type like 'message.%' then conversation_peer end,
                 envelope, ${now}, ${now}, ${now}
          from m where not buffered
          order by id, subscription_id
          returning 1
        ),
        buf as (
          insert into webhook_buffer_items
            (subscription_id, developer_account_id, platform_channel_id, event_type, event_id, envelope, created_at)
          select subscription_id, developer_account_id, platform_channel_id, event_type, event_id, envelope, ${now}
          from m where buffered
          order by id
          returning 1
        )
        select (select count(*) from ev)::int as events,
               (select count(*) from ins)::int as deliveries,
               (select count(*) from buf)::int as buffered`.pipe(Effect.orDie)
      const result = row ?? { events: 0, deliveries: 0, buffered: 0 }
      if (result.deliveries > 0) yield* wakeup.deliveriesWritten
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
