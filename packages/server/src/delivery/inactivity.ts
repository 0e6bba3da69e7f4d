import { SqlClient } from "@effect/sql"
import { API_VERSION } from "@platform/shared"
import { Clock, Effect } from "effect"
import { CONVERSATION_VISIBLE } from "../outbox/data-visibility.js"
import { newEventId } from "../outbox/events.js"
import { DeliveryWakeup } from "./wakeup.js"

interface Candidate {
  readonly subscription_id: number
  readonly developer_account_id: number
  readonly conversation_id: number
  readonly platform_channel_id: number
  readonly peer_id: string
  readonly status: "active" | "ended"
  readonly message_count: number
  readonly last_active_at: Date
  /** last_active_at exactly, microseconds included (a Date keeps milliseconds). */
  readonly notified_for: string
}

/**
 * The inactivity sweep (SPEC §3.2): for each subscription with
 * inactivity_minutes, each active conversation of its scope idle for longer gets
 * one conversation.inactive delivery for that subscription. The notice row
 * remembers which last_active_at was reported (to the microsecond, as stored),
 * so the event is sent once per period of inactivity and new activity re-arms
 * it. Setting inactivity_minutes
 * is the opt-in: the event goes to that subscription whatever its event_types.
 */
export class InactivitySweep extends Effect.Service<InactivitySweep>()("@platform/server/InactivitySweep", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* DeliveryWakeup

    const runOnce = Effect.fn("InactivitySweep.runOnce")(function*(limit: number = 1000) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const emitted = yield* sql.withTransaction(Effect.gen(function*() {
        const candidates = yield* sql<Candidate>`
          select s.id as subscription_id, s.developer_account_id, c.id as conversation_id, c.platform_channel_id,
                 c.peer_id, c.status, c.message_count, c.last_active_at, c.last_active_at::text as notified_for
          from webhook_subscriptions s
          join conversations c
            on c.developer_account_id = s.developer_account_id
           and (s.platform_channel_id is null or c.platform_channel_id = s.platform_channel_id)
           and c.status = 'active'
           and c.last_active_at < ${now}::timestamptz - make_interval(mins => s.inactivity_minutes)
          left join conversation_inactivity_notices n on n.subscription_id = s.id and n.conversation_id = c.id
          where s.inactivity_minutes is not null and s.is_active and not s.is_paused
            and (n.notified_for is null or n.notified_for <> c.last_active_at)
            and ${sql.literal(CONVERSATION_VISIBLE)}
          order by s.id, c.id
          limit ${limit}
          for update of s skip locked`
        if (candidates.length === 0) return 0
        const envelopes = candidates.map((c) => ({
          id: newEventId(),
          event: "conversation.inactive",
          developer_account_id: c.developer_account_id,
          platform_channel_id: c.platform_channel_id,
          occurred_at: now.toISOString(),
          api_version: API_VERSION,
          data: {
            conversation_id: c.conversation_id,
            peer_id: c.peer_id,
            status: c.status,
            message_count: c.message_count,
            last_active_at: c.last_active_at.toISOString()
          }
        }))
        yield* sql`
          with n as (
            insert into conversation_inactivity_notices (subscription_id, conversation_id, notified_for)
            select * from unnest(${candidates.map((c) => c.subscription_id)}::bigint[],
                                 ${candidates.map((c) => c.conversation_id)}::bigint[],
                                 ${candidates.map((c) => c.notified_for)}::timestamptz[])
            on conflict (subscription_id, conversation_id) do update set notified_for = excluded.notified_for
          )
          insert into webhook_deliveries
            (subscription_id, developer_account_id, platform_channel_id, event_id, event_type, envelope,
             next_retry_at, created_at, updated_at)
          select sid, aid, cid, eid, 'conversation.inactive', env::json, ${now}, ${now}, ${now}
          from unnest(${candidates.map((c) => c.subscription_id)}::bigint[],
                      ${candidates.map((c) => c.developer_account_id)}::bigint[],
                      ${candidates.map((c) => c.platform_channel_id)}::bigint[],
                      ${envelopes.map((e) => e.id)}::text[],
                      ${envelopes.map((e) => JSON.stringify(e))}::text[]) with ordinality as u(sid, aid, cid, eid, env, n)
          -- No foreign key (migration 0006): a subscription deleted meanwhile gets no row.
          join webhook_subscriptions s on s.id = u.sid
          order by u.n
          for key share of s`
        return candidates.length
      })).pipe(Effect.orDie)
      if (emitted > 0) yield* wakeup.deliveriesWritten
      return emitted
    })

    return { runOnce } as const
  })
}) {}
