import { PLAN_LIMITS, PlanNames } from "@platform/shared"
import { envelopeSql, isoTimestampSql, jsonObjectSql, messageDataSql } from "../outbox/events.js"
import { PARKED_STATUS_TTL_MINUTES, STATUS_EVENTS, STATUS_RANK, statusRankSql } from "../outbox/statuses.js"
import type { CreatedDelivery } from "./batch.js"
import type { InboundPlan } from "./plan.js"

const planLimits = `(values ${
  PlanNames.map((p) => `('${p}', ${PLAN_LIMITS[p].inbound_messages_per_month}::bigint)`).join(", ")
})`

/** How a parked body's row (a channel without raw forward) begins its last_error; the reasons follow. */
export const PARKED_PREFIX = "not forwarded (the channel has no raw-forward webhook): parked, not the shape Meta documents: "
const PARKED_PREFIX_SQL = `'${PARKED_PREFIX.replaceAll("'", "''")}'`

const active = (alias: string) =>
  `exists (select 1 from platform_channels c where c.id = ${alias}.channel_id and c.is_active and c.inbound_enabled)`

/** The data of a message.* event of the message row `m` (an `error` for status events). */
const messageData = (m: string, peer: string, error?: string) =>
  messageDataSql({
    id: `${m}.id`,
    conversationId: `${m}.conversation_id`,
    peer,
    direction: `${m}.direction`,
    source: `${m}.source`,
    type: `${m}.type`,
    text: `${m}.text`,
    mediaId: `${m}.media_id`,
    status: `${m}.status`,
    metaMessageId: `${m}.meta_message_id`,
    error
  })

/*
 * The quota part of the messages (SPEC §6.5, §8). Exact: the conditional upsert
 * that never overshoots the plan's limit, and the accounts it refuses. Counted
 * after the fact (a batch far below the cap, see InboundStore): every fresh
 * message is admitted and its count returned for the ledger, so the statement
 * carries none of the exact part.
 */
const QUOTA_EXACT = `
m_demand as (
  select f.account_id, count(*)::bigint as n, l.max from m_fresh f
  join developer_accounts a on a.id = f.account_id
  join ${planLimits} as l(plan, max) on l.plan = a.plan
  where f.kind = 'message' group by f.account_id, l.max
),
m_quota as (
  insert into usage_counters as u (developer_account_id, period, metric, used)
  select account_id, :period::date, 'inbound_messages', n from m_demand where n <= max
  on conflict (developer_account_id, period, metric) do update set used = u.used + excluded.used
  where u.used + excluded.used <= (select d.max from m_demand d where d.account_id = u.developer_account_id)
  returning developer_account_id, used
),
m_ok as (
  select f.* from m_fresh f where f.kind = 'echo' or f.account_id in (select developer_account_id from m_quota)
),
m_refused as (
  select distinct f.channel_id from m_fresh f
  where f.kind = 'message' and f.account_id not in (select developer_account_id from m_quota)
)`
const QUOTA_COUNTED_AFTER = `
m_demand as (
  select f.account_id, count(*)::bigint as n, null::bigint as max from m_fresh f
  where f.kind = 'message' group by f.account_id
),
m_ok as (select * from m_fresh)`

/*
 * The whole POST is ONE statement (DESIGN §8): data-modifying CTEs upsert
 * contacts and conversations, insert messages (deduplicated by upstream id),
 * consume the inbound quota, advance statuses, resolve templates, store quality
 * ratings, write every event and the raw-forward rows. A single statement is
 * its own transaction, so it commits or rolls back as one, in one round trip.
 * Each row set travels as one jsonb parameter expanded by jsonb_to_recordset.
 *
 * Conversation ids are allocated before the messages that point at them (the
 * counters can then be computed from the messages actually inserted, so a
 * duplicate never counts). Two POSTs opening the same conversation at once
 * make the loser's messages point at an id that was never inserted; its
 * foreign key fails, the statement rolls back and is simply run again.
 */
export const buildStatement = (plan: InboundPlan, exact: boolean): string => {
  const M = plan.messages.length > 0
  const S = plan.statuses.length > 0
  const T = plan.templates.length > 0
  const Q = plan.qualities.length > 0
  const F = plan.forwards.length > 0
  const ctes: Array<string> = []
  const events: Array<string> = []

  if (M) {
    ctes.push(`
m_in as (
  select x.* from jsonb_to_recordset(:messages::jsonb) as x(i int, p int, channel_id bigint, account_id bigint, kind text, mid text,
    peer text, chat_id text, social_id text, bsuid text, phone text, username text, profile_name text, type text,
    body text, payload jsonb, media_id text, evt text, conv_evt text)
  where ${active("x")}
),
m_fresh as (
  select distinct on (x.channel_id, x.mid) x.* from m_in x
  where not exists (select 1 from messages e where e.platform_channel_id = x.channel_id and e.meta_message_id = x.mid)
  order by x.channel_id, x.mid, x.i
),
${exact ? QUOTA_EXACT : QUOTA_COUNTED_AFTER},
m_chat_contacts as (
  insert into contacts as k (developer_account_id, platform_channel_id, chat_id, business_scoped_user_id, phone, username, profile_name)
  select distinct on (o.channel_id, o.chat_id) o.account_id, o.channel_id, o.chat_id, o.bsuid, o.phone, o.username, o.profile_name
  from m_ok o where o.chat_id is not null
  order by o.channel_id, o.chat_id, (o.kind = 'message') desc, o.i desc
  on conflict (platform_channel_id, chat_id) where chat_id is not null do update set
    last_seen_at = now(),
    profile_name = coalesce(excluded.profile_name, k.profile_name),
    business_scoped_user_id = coalesce(excluded.business_scoped_user_id, k.business_scoped_user_id),
    username = coalesce(excluded.username, k.username),
    phone = coalesce(k.phone, excluded.phone)
  returning id, platform_channel_id, chat_id as peer
),
m_social_contacts as (
  insert into contacts as k (developer_account_id, platform_channel_id, social_id)
  select distinct on (o.channel_id, o.social_id) o.account_id, o.channel_id, o.social_id
  from m_ok o where o.social_id is not null
  order by o.channel_id, o.social_id
  on conflict (platform_channel_id, social_id) where social_id is not null do update set last_seen_at = now()
  returning id, platform_channel_id, social_id as peer
),
m_peers as (
  select o.channel_id, o.peer, min(o.account_id) as account_id, min(o.conv_evt) as conv_evt
  from m_ok o group by o.channel_id, o.peer
),
m_conv as (
  select p.channel_id, p.peer, p.account_id, p.conv_evt,
    coalesce(cv.id, nextval(pg_get_serial_sequence('conversations', 'id'))) as conv_id,
    coalesce(kc.id, ks.id) as contact_id
  from m_peers p
  left join conversations cv on cv.platform_channel_id = p.channel_id and cv.peer_id = p.peer
  left join m_chat_contacts kc on kc.platform_channel_id = p.channel_id and kc.peer = p.peer
  left join m_social_contacts ks on ks.platform_channel_id = p.channel_id and ks.peer = p.peer
),
m_ins as (
  insert into messages (developer_account_id, platform_channel_id, conversation_id, contact_id, direction, source, type,
    text, payload, media_id, status, status_updated_at, meta_message_id)
  select o.account_id, o.channel_id, c.conv_id, c.contact_id,
    case when o.kind = 'echo' then 'outbound' else 'inbound' end,
    case when o.kind = 'echo' then 'app_echo' else 'contact' end,
    o.type, o.body, coalesce(o.payload, '{}'::jsonb), o.media_id,
    case when o.kind = 'echo' then 'sent' end, case when o.kind = 'echo' then now() end, o.mid
  from m_ok o join m_conv c on c.channel_id = o.channel_id and c.peer = o.peer
  order by o.i
  on conflict (platform_channel_id, meta_message_id) where meta_message_id is not null do nothing
  returning id, platform_channel_id, conversation_id, direction, source, type, text, media_id, status, meta_message_id
),
m_posted as (
  select o.p, o.channel_id from m_ins i join m_ok o on o.channel_id = i.platform_channel_id and o.mid = i.meta_message_id
),
m_stats as (
  select conversation_id, count(*)::int as n,
    (count(*) filter (where direction = 'inbound'))::int as n_in,
    (count(*) filter (where direction = 'outbound'))::int as n_out,
    (array_agg(direction order by id desc))[1] as last_dir,
    (array_agg(left(coalesce(text, '[' || type || ']'), 200) order by id desc))[1] as preview
  from m_ins group by conversation_id
),
m_conv_up as (
  insert into conversations as cv (id, developer_account_id, platform_channel_id, platform_contact_id, peer_id,
    last_active_at, last_message_direction, last_message_preview, message_count, inbound_count, outbound_count, created_event_id)
  overriding system value
  select c.conv_id, c.account_id, c.channel_id, c.contact_id, c.peer, now(), s.last_dir, s.preview, s.n, s.n_in, s.n_out, c.conv_evt
  from m_stats s join m_conv c on c.conv_id = s.conversation_id
  on conflict (platform_channel_id, peer_id) do update set
    created_event_id = coalesce(cv.created_event_id, excluded.created_event_id),
    last_active_at = now(),
    last_message_direction = excluded.last_message_direction,
    last_message_preview = excluded.last_message_preview,
    message_count = cv.message_count + excluded.message_count,
    inbound_count = cv.inbound_count + excluded.inbound_count,
    outbound_count = cv.outbound_count + excluded.outbound_count,
    platform_contact_id = coalesce(cv.platform_contact_id, excluded.platform_contact_id)
  returning id, developer_account_id, platform_channel_id, peer_id, status, message_count, created_event_id
)`)
    events.push(`
  select 0 as g, 0 as o, c.conv_evt as event_id, u.developer_account_id as account_id, u.platform_channel_id as channel_id,
    'conversation.created' as event_type, null::text as peer,
    ${jsonObjectSql(`u.id as conversation_id, u.peer_id as peer_id, u.status as status,
      u.message_count as message_count, ${isoTimestampSql(":now")} as last_active_at`)} as data,
    (select min(o.p) from m_ok o where o.channel_id = c.channel_id and o.peer = c.peer) as p
  from m_conv_up u join m_conv c on c.conv_id = u.id where u.created_event_id = c.conv_evt`)
    events.push(`
  select 1, o.i, o.evt, o.account_id, o.channel_id,
    case when o.kind = 'echo' then 'message.echo' else 'message.received' end, o.peer, ${messageData("i", "o.peer")}, o.p
  from m_ins i join m_ok o on o.channel_id = i.platform_channel_id and o.mid = i.meta_message_id`)
  }

  if (S) {
    const eventTypes = Object.entries(STATUS_EVENTS).map(([s, e]) => `when '${s}' then '${e}'`).join(" ")
    ctes.push(`
s_in as (
  select x.* from json_to_recordset(:statuses::json) as x(i int, p int, channel_id bigint, mid text, status text, envelope json, evt text)
  where ${active("x")}
),
s_best as (
  select distinct on (x.channel_id, x.mid) x.* from s_in x
  order by x.channel_id, x.mid, ${statusRankSql("x.status")} desc, x.i desc
),
s_up as (
  update messages m set status = s.status, status_updated_at = now(), error = coalesce(s.envelope::jsonb, m.error)
  from s_best s
  where m.platform_channel_id = s.channel_id and m.meta_message_id = s.mid and m.direction = 'outbound'
    and ${statusRankSql("s.status")} > ${statusRankSql("m.status")}
  returning m.id, m.developer_account_id, m.platform_channel_id, m.conversation_id, m.direction, m.source, m.type,
    m.text, m.media_id, m.status, m.meta_message_id, s.envelope, s.evt, s.i, s.p
),
s_unknown as (
  select s.mid from s_best s where not exists (
    select 1 from messages m where m.platform_channel_id = s.channel_id and m.meta_message_id = s.mid and m.direction = 'outbound')
),
s_park as (
  insert into parked_statuses (platform_channel_id, meta_message_id, status, envelope, event_id, expires_at)
  select distinct on (x.channel_id, x.mid, x.status) x.channel_id, x.mid, x.status, x.envelope, x.evt,
    :now::timestamptz + interval '${PARKED_STATUS_TTL_MINUTES} minutes'
  from s_in x
  where ${statusRankSql("x.status")} > ${STATUS_RANK.sent}
    and not exists (select 1 from messages m where m.platform_channel_id = x.channel_id and m.meta_message_id = x.mid and m.direction = 'outbound')
  order by x.channel_id, x.mid, x.status, x.i
  on conflict (platform_channel_id, meta_message_id, status) do nothing
  returning 1
)`)
    events.push(`
  select 2, u.i, u.evt, u.developer_account_id, u.platform_channel_id,
    case u.status ${eventTypes} end, cv.peer_id,
    ${messageData("u", "coalesce(cv.peer_id, '')", "u.envelope")}, u.p
  from s_up u left join conversations cv on cv.id = u.conversation_id
  where u.status in (${Object.keys(STATUS_EVENTS).map((s) => `'${s}'`).join(", ")})`)
  }

  if (T) {
    ctes.push(`
t_in as (
  select x.* from jsonb_to_recordset(:templates::jsonb) as x(i int, waba_id text, meta_template_id text, name text, language text,
    status text, reason text, evt text)
),
t_target as (
  select distinct on (x.i) x.*, t.id as template_id, lower(t.meta_status) as previous_status
  from t_in x
  join platform_channels c on c.waba_id = x.waba_id and c.is_active and c.inbound_enabled
  join templates t on t.platform_channel_id = c.id and (t.meta_template_id = x.meta_template_id
    or (t.meta_template_id is null and t.name = x.name and t.language_code = x.language))
  order by x.i, (t.meta_template_id is not distinct from x.meta_template_id) desc, t.id
),
t_up as (
  update templates t set meta_status = x.status, meta_template_id = coalesce(t.meta_template_id, x.meta_template_id),
    meta_rejection_reason = case when x.status = 'rejected' then x.reason end, updated_at = now()
  from t_target x
  where t.id = x.template_id and x.previous_status is distinct from x.status
  returning t.id, t.developer_account_id, t.platform_channel_id, t.name, t.language_code, t.meta_template_id,
    t.meta_rejection_reason, t.meta_status, x.previous_status, x.evt, x.i
)`)
    events.push(`
  select 3, u.i, u.evt, u.developer_account_id, u.platform_channel_id, 'template.status_changed', null::text,
    ${jsonObjectSql(`u.id as template_id, u.name as name, u.language_code as language_code,
      coalesce(u.previous_status, 'pending') as previous_status, u.meta_status as status,
      u.meta_template_id as meta_template_id, u.meta_rejection_reason as rejection_reason`)}, 0
  from t_up u`)
  }

  if (Q) {
    ctes.push(`
q_up as (
  update platform_channels p set quality_rating = x.rating, updated_at = now()
  from jsonb_to_recordset(:qualities::jsonb) as x(channel_id bigint, rating text)
  where p.id = x.channel_id and p.is_active and p.inbound_enabled
  returning p.id
)`)
  }

  if (events.length > 0) {
    ctes.push(`
ev as (
  insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope,
    occurred_at, fanned_out_at, trace_parent)
  select e.event_id, e.account_id, e.channel_id, e.event_type, e.peer,
    ${envelopeSql({ id: "e.event_id", event: "e.event_type", account: "e.account_id", channel: "e.channel_id", occurredAt: ":now", data: "e.data" })},
    :now::timestamptz,
    case when not exists (select 1 from webhook_subscriptions s
                          where s.developer_account_id = e.account_id and s.is_active and not s.is_paused)
         then :now::timestamptz end,
    :traces::jsonb ->> e.p
  from (${events.join("\n  union all")}
  ) as e(g, o, event_id, account_id, channel_id, event_type, peer, data, p)
  order by e.g, e.o
  returning fanned_out_at, event_type
)`)
  }

  if (F) {
    // A parked body (parts not the shape Meta documents) is recorded for a channel without
    // raw forward too: a failed row, never sent, whose last_error says why (the account sees it
    // in the deliveries log); a channel with raw forward gets it forwarded as it came.
    ctes.push(`
f_ins as (
  insert into platform_deliveries (developer_account_id, platform_channel_id, status, next_retry_at, holder, body, last_error, trace_parent)
  select c.developer_account_id, c.id,
    case when c.webhook_url is null then 'failed' when :inline::boolean then 'delivering' else 'pending' end,
    case when :inline::boolean and c.webhook_url is not null then :now::timestamptz + interval '2 minutes' else :now::timestamptz end,
    case when :inline::boolean and c.webhook_url is not null then :holder::int8 end,
    x.body,
    case when c.webhook_url is null then ${PARKED_PREFIX_SQL} || x.parked end,
    :traces::jsonb ->> x.p
  from jsonb_to_recordset(:forwards::jsonb) as x(i int, p int, channel_id bigint, body text, other boolean, parked text)
  join platform_channels c on c.id = x.channel_id and c.is_active and c.inbound_enabled
    and (c.webhook_url is not null or x.parked is not null)
  where ${M ? "(x.other or exists (select 1 from m_posted d where d.p = x.p and d.channel_id = x.channel_id))" : "x.other"}
    ${M && exact ? "and not exists (select 1 from m_refused r where r.channel_id = x.channel_id)" : ""}
  order by x.i
  returning id, developer_account_id, platform_channel_id, attempts, body, trace_parent,
    (select webhook_url from platform_channels p where p.id = platform_channel_id) as webhook_url,
    (select webhook_secret_encrypted from platform_channels p where p.id = platform_channel_id) as webhook_secret_encrypted
)`)
  }

  return `with ${ctes.join(",")}
select
  ${M ? "(select coalesce(jsonb_agg(p), '[]'::jsonb) from m_posted)" : "'[]'::jsonb"} as inserted,
  ${M && exact ? "exists (select 1 from m_refused)" : "false"} as refused,
  ${S ? "(select coalesce(jsonb_agg(mid), '[]'::jsonb) from s_unknown)" : "'[]'::jsonb"} as unknown_statuses,
  ${S ? "(select count(*) from s_park)::int" : "0"} as parked,
  ${F ? "(select coalesce(jsonb_agg(to_jsonb(f)), '[]'::jsonb) from f_ins f where f.webhook_url is not null)" : "'[]'::jsonb"} as deliveries,
  ${events.length > 0 ? "(select count(*) from ev where fanned_out_at is null)::int" : "0"} as events,
  ${events.length > 0 ? "(select json_object_agg(event_type, n) from (select event_type, count(*)::int as n from ev group by event_type) t)" : "null::json"} as event_types,
  ${!M ? "'[]'::jsonb" : exact ? `(select coalesce(jsonb_agg(jsonb_build_object('account_id', d.account_id, 'n', d.n, 'max', d.max, 'used', q.used)), '[]'::jsonb)
    from m_demand d left join m_quota q on q.developer_account_id = d.account_id)` : `(select coalesce(jsonb_agg(jsonb_build_object('account_id', d.account_id, 'n', d.n, 'max', d.max, 'used', null)), '[]'::jsonb)
    from m_demand d)`} as demand`
}

/** The one row the statement answers. */
export interface ResultRow {
  /** The POST index of every message inserted. */
  readonly inserted: ReadonlyArray<number> | string
  readonly refused: boolean
  readonly unknown_statuses: ReadonlyArray<string> | string
  readonly deliveries: ReadonlyArray<Omit<CreatedDelivery, "webhook_secret_encrypted"> & { webhook_secret_encrypted: string | null }> | string
  readonly events: number
  /** Events written, by type (metrics); null when none. */
  readonly event_types: Readonly<Record<string, number>> | string | null
  readonly demand: ReadonlyArray<Demand> | string
}

export interface Demand {
  readonly account_id: number
  readonly n: number
  readonly max: number
  /** The counter after an exact consume; null when refused or not counted exactly. */
  readonly used: number | null
}
