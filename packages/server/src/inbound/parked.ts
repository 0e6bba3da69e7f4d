import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { countEvents } from "../telemetry/metrics.js"
import { envelopeSql, messageDataSql } from "../outbox/events.js"
import { STATUS_EVENTS, statusRankSql } from "../outbox/statuses.js"

const CASES = Object.entries(STATUS_EVENTS).map(([s, e]) => `when '${s}' then '${e}'`).join(" ")

/** The event of an applied status (`s`, the parked row) of its message (`u`): the status's error goes in as it came. */
const PARKED_EVENT_ENVELOPE = envelopeSql({
  id: "s.event_id",
  event: `case s.status ${CASES} end`,
  account: "u.developer_account_id",
  channel: "u.platform_channel_id",
  occurredAt: "now()",
  data: messageDataSql({
    id: "u.id",
    conversationId: "u.conversation_id",
    peer: "coalesce(cv.peer_id, '')",
    direction: "u.direction",
    source: "u.source",
    type: "u.type",
    text: "u.text",
    mediaId: "u.media_id",
    status: "s.status",
    metaMessageId: "u.meta_message_id",
    error: "s.envelope"
  })
})
const VALUES = Object.keys(STATUS_EVENTS).map((s) => `'${s}'`).join(", ")

/*
 * The sweep of parked status callbacks, one statement: drops the expired ones
 * whose message never appeared, and applies (in arrival order, never backwards,
 * with their events) those whose message exists now. The send's own record
 * statement applies its parked statuses; this catches the race where the
 * callback was parked while that send was being recorded (neither statement saw
 * the other's uncommitted row).
 */
const SWEEP = `
with expired as (
  delete from parked_statuses p where p.expires_at <= now() and not exists (
    select 1 from messages m where m.platform_channel_id = p.platform_channel_id and m.meta_message_id = p.meta_message_id
      and m.direction = 'outbound')
  returning 1
),
found as (
  delete from parked_statuses p using messages m
  where m.platform_channel_id = p.platform_channel_id and m.meta_message_id = p.meta_message_id and m.direction = 'outbound'
  returning p.id, p.status, p.envelope, p.event_id, p.expires_at > now() as live, m.id as message_id,
    ${statusRankSql("p.status")} as r, ${statusRankSql("m.status")} as current
),
steps as (
  select q.* from (
    select f.*, max(f.r) over (partition by f.message_id order by f.id rows between unbounded preceding and 1 preceding) as prev
    from found f where f.live
  ) q where q.r > greatest(q.current, coalesce(q.prev, 0))
),
best as (select distinct on (message_id) * from steps order by message_id, r desc),
up as (
  update messages m set status = b.status, status_updated_at = now(), error = coalesce(b.envelope::jsonb, m.error)
  from best b where m.id = b.message_id and b.r > ${statusRankSql("m.status")}
  returning m.id, m.developer_account_id, m.platform_channel_id, m.conversation_id, m.direction, m.source, m.type, m.text,
    m.media_id, m.meta_message_id
),
ev as (
  insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope, occurred_at)
  select s.event_id, u.developer_account_id, u.platform_channel_id, case s.status ${CASES} end, cv.peer_id,
    ${PARKED_EVENT_ENVELOPE},
    now()
  from steps s join up u on u.id = s.message_id left join conversations cv on cv.id = u.conversation_id
  where s.status in (${VALUES})
  order by s.id
  returning event_type
)
select (select count(*) from expired)::int as expired, (select count(*) from found)::int as applied,
  (select count(*) from ev)::int as events,
  (select json_object_agg(event_type, n) from (select event_type, count(*)::int as n from ev group by event_type) t) as event_types`

export interface SweepResult {
  readonly expired: number
  readonly applied: number
  readonly events: number
}

export class ParkedStatuses extends Effect.Service<ParkedStatuses>()("@platform/server/ParkedStatuses", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* Effect.serviceOption(DeliveryWakeup)
    const sweepOnce = Effect.gen(function*() {
      const [row] = yield* sql.unsafe<SweepResult & { readonly event_types: Record<string, number> | null }>(SWEEP).pipe(Effect.orDie)
      const { event_types, ...result } = row ?? { expired: 0, applied: 0, events: 0, event_types: null }
      countEvents(event_types)
      if (result.events > 0 && Option.isSome(wakeup)) yield* wakeup.value.eventsWritten
      return result
    })
    return { sweepOnce } as const
  })
}) {}
