import { SqlClient, SqlError } from "@effect/sql"
import { PLAN_LIMITS, PlanNames } from "@platform/shared"
import { Cause, Clock, Duration, Effect, Exit, Option, Queue } from "effect"
import { createHash } from "node:crypto"
import { dedicatedSession, PgPool, poolQuery, scopedPool } from "../db/client.js"
import { envelopeSql, isoTimestampSql, jsonObjectSql, messageDataSql } from "../outbox/events.js"
import { jsonbRows } from "../db/jsonb-rows.js"
import { currentPeriod } from "../db/usage-period.js"
import { type CreatedDelivery, groupsOf, isBatchable, MAX_BATCH, mergePlans, type PersistResult, shares } from "./batch.js"
import type { InboundPlan } from "./plan.js"
import { PARKED_STATUS_TTL_MINUTES, STATUS_EVENTS, STATUS_RANK, statusRankSql } from "../outbox/statuses.js"

export interface PersistOptions {
  /**
   * This process attempts the rows itself right after commit: they are written
   * already leased (`delivering`, lease 2 min), which spares the claim round trip;
   * if the process dies first, the lease expires and the sweep takes them.
   */
  readonly inline: boolean
}

const planLimits = `(values ${
  PlanNames.map((p) => `('${p}', ${PLAN_LIMITS[p].inbound_messages_per_month}::bigint)`).join(", ")
})`

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
      u.message_count as message_count, ${isoTimestampSql(":now")} as last_active_at`)} as data
  from m_conv_up u join m_conv c on c.conv_id = u.id where u.created_event_id = c.conv_evt`)
    events.push(`
  select 1, o.i, o.evt, o.account_id, o.channel_id,
    case when o.kind = 'echo' then 'message.echo' else 'message.received' end, o.peer, ${messageData("i", "o.peer")}
  from m_ins i join m_ok o on o.channel_id = i.platform_channel_id and o.mid = i.meta_message_id`)
  }

  if (S) {
    const eventTypes = Object.entries(STATUS_EVENTS).map(([s, e]) => `when '${s}' then '${e}'`).join(" ")
    ctes.push(`
s_in as (
  select x.* from json_to_recordset(:statuses::json) as x(i int, channel_id bigint, mid text, status text, envelope json, evt text)
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
    m.text, m.media_id, m.status, m.meta_message_id, s.envelope, s.evt, s.i
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
    ${messageData("u", "coalesce(cv.peer_id, '')", "u.envelope")}
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
      u.meta_template_id as meta_template_id, u.meta_rejection_reason as rejection_reason`)}
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
    occurred_at, fanned_out_at)
  select e.event_id, e.account_id, e.channel_id, e.event_type, e.peer,
    ${envelopeSql({ id: "e.event_id", event: "e.event_type", account: "e.account_id", channel: "e.channel_id", occurredAt: ":now", data: "e.data" })},
    :now::timestamptz,
    case when not exists (select 1 from webhook_subscriptions s
                          where s.developer_account_id = e.account_id and s.is_active and not s.is_paused)
         then :now::timestamptz end
  from (${events.join("\n  union all")}
  ) as e(g, o, event_id, account_id, channel_id, event_type, peer, data)
  order by e.g, e.o
  returning fanned_out_at
)`)
  }

  if (F) {
    ctes.push(`
f_ins as (
  insert into platform_deliveries (developer_account_id, platform_channel_id, status, next_retry_at, body)
  select c.developer_account_id, c.id, case when :inline::boolean then 'delivering' else 'pending' end,
    case when :inline::boolean then :now::timestamptz + interval '2 minutes' else :now::timestamptz end, x.body
  from jsonb_to_recordset(:forwards::jsonb) as x(i int, p int, channel_id bigint, body text, other boolean)
  join platform_channels c on c.id = x.channel_id and c.is_active and c.inbound_enabled and c.webhook_url is not null
  where ${M ? "(x.other or exists (select 1 from m_posted d where d.p = x.p and d.channel_id = x.channel_id))" : "x.other"}
    ${M && exact ? "and not exists (select 1 from m_refused r where r.channel_id = x.channel_id)" : ""}
  order by x.i
  returning id, developer_account_id, platform_channel_id, attempts, body,
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
  ${F ? "(select coalesce(jsonb_agg(to_jsonb(f)), '[]'::jsonb) from f_ins f)" : "'[]'::jsonb"} as deliveries,
  ${events.length > 0 ? "(select count(*) from ev where fanned_out_at is null)::int" : "0"} as events,
  ${!M ? "'[]'::jsonb" : exact ? `(select coalesce(jsonb_agg(jsonb_build_object('account_id', d.account_id, 'n', d.n, 'max', d.max, 'used', q.used)), '[]'::jsonb)
    from m_demand d left join m_quota q on q.developer_account_id = d.account_id)` : `(select coalesce(jsonb_agg(jsonb_build_object('account_id', d.account_id, 'n', d.n, 'max', d.max, 'used', null)), '[]'::jsonb)
    from m_demand d)`} as demand`
}

interface ResultRow {
  /** The POST index of every message inserted. */
  readonly inserted: ReadonlyArray<number> | string
  readonly refused: boolean
  readonly unknown_statuses: ReadonlyArray<string> | string
  readonly deliveries: ReadonlyArray<Omit<CreatedDelivery, "webhook_secret_encrypted"> & { webhook_secret_encrypted: string | null }> | string
  readonly events: number
  readonly demand: ReadonlyArray<Demand> | string
}

interface Demand {
  readonly account_id: number
  readonly n: number
  readonly max: number
  /** The counter after an exact consume; null when refused or not counted exactly. */
  readonly used: number | null
}

const json = <A>(v: A | string): A => (typeof v === "string" ? (JSON.parse(v) as A) : v)

/** bytea inside jsonb comes back as `\x<hex>`. */
const byteaOf = (hex: string | null): Uint8Array | null =>
  hex === null ? null : new Uint8Array(Buffer.from(hex.replace(/^\\x/, ""), "hex"))

const PARAMETERS = ["now", "period", "messages", "statuses", "templates", "qualities", "forwards", "inline"] as const
type Parameter = typeof PARAMETERS[number]

/**
 * Numbers the `:name` placeholders of a statement in order of first use and
 * lists the parameters it uses (Postgres refuses a parameter it never sees).
 */
const bind = (statement: string) => {
  const names: Array<Parameter> = []
  const known = new Set<string>(PARAMETERS)
  const text = statement.replace(/(?<!:):([a-z]+)\b/g, (whole, name: string) => {
    if (!known.has(name)) return whole
    let n = names.indexOf(name as Parameter)
    if (n < 0) n = names.push(name as Parameter) - 1
    return `$${n + 1}`
  })
  return { text, names }
}

/** A statement ready to run: its text with numbered placeholders, its parameters, and a stable name. */
export interface PreparedStatement {
  readonly name: string
  readonly text: string
  readonly names: ReadonlyArray<Parameter>
}

/*
 * The statement's text depends only on which kinds of rows the POST carries and
 * on whether it consumes quota exactly, so there are at most 64 of them; each is
 * built once and runs as a NAMED prepared
 * statement (planned once per connection instead of on every POST: planning
 * this statement costs several times its execution).
 */
const statements = new Map<string, PreparedStatement>()
export const statementFor = (plan: InboundPlan, exact: boolean): PreparedStatement => {
  const key = [plan.messages, plan.statuses, plan.templates, plan.qualities, plan.forwards]
    .map((rows) => (rows.length > 0 ? "1" : "0")).join("") + (exact ? "e" : "b")
  let prepared = statements.get(key)
  if (prepared === undefined) {
    const { names, text } = bind(buildStatement(plan, exact))
    const hash = createHash("sha1").update(text).digest("hex").slice(0, 12)
    prepared = { name: `inbound_${key}_${hash}`, text, names }
    statements.set(key, prepared)
  }
  return prepared
}

const isRetryable = (error: SqlError.SqlError): boolean => {
  const code = (error.cause as { code?: unknown } | undefined)?.code
  // 23503: the conversation race above; 23505/40001/40P01: other concurrent writers.
  return code === "23503" || code === "23505" || code === "40001" || code === "40P01"
}

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

/** Connections for the POSTs that run alone, beside the batch writer's. */
const ALONE_CONNECTIONS = 4

/*
 * The statement is planned once per connection, then runs that generic plan for
 * good. Planned while a table was small (a new deployment; a table growing faster
 * than autovacuum analyzes it), the plan hashes the whole table (messages,
 * conversations) on every later run, a cost growing with the table. Every row set
 * of the statement is a few rows probing unique keys, so the right plan never
 * scans a table: with sequential scans off it is chosen whatever the statistics
 * say. Measured on 2 cores at the unlimited rate: Postgres CPU per message 169 ->
 * 126-145 us, and `bench:inbound` 0.36-0.55 x bare -> 0.57-0.81 x (5 runs).
 */
const INBOUND_PLANNER = { enable_seqscan: "off" }

/*
 * One writer: batched POSTs run one statement at a time, and the next batch
 * forms while it runs. A second concurrent statement halves both batches (the
 * fixed cost per statement then dominates) and contends with the first for the
 * same rows and index pages, on the same cores. Measured with `bench:inbound` at the
 * unlimited rate on 2 cores: 2 writers 2,590-2,630 msg/s, p99 28-31 ms, 8-10
 * messages per statement; 1 writer 4,180 msg/s, p99 15 ms, 14 per statement.
 */

interface CachedUsage {
  used: number
  readonly max: number
  readonly period: string
  readonly expires: number
}

/** A POST waiting for its batch. */
interface Queued {
  readonly plan: InboundPlan
  readonly inline: boolean
  readonly demand: ReadonlyMap<number, number>
  /** Called once: after the commit, or with the failure. */
  readonly done: (exit: Exit.Exit<PersistResult>) => void
}

const demandOf = (plan: InboundPlan): ReadonlyMap<number, number> => {
  const demand = new Map<number, number>()
  for (const m of plan.messages) if (m.kind === "message") demand.set(m.account_id, (demand.get(m.account_id) ?? 0) + 1)
  return demand
}

/** Writes everything one Meta POST carries, as one statement (see `buildStatement`), batched with concurrent POSTs. */
export class InboundStore extends Effect.Service<InboundStore>()("@platform/server/InboundStore", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* Effect.serviceOption(PgPool)
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
    yield* flush.pipe(
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

    // On Postgres the inbound statements run on a pool of their own whose
    // connections never plan a sequential scan (see INBOUND_PLANNER); the batch
    // writer keeps one of its connections (its statements stay planned) and a POST
    // that must run alone takes any other. Embedded PGlite has one backend session
    // for every client: nothing to keep.
    const own = Option.isSome(pool)
      ? Option.getOrUndefined(yield* scopedPool(pool.value, { max: 1 + ALONE_CONNECTIONS, settings: INBOUND_PLANNER }))
      : undefined
    const session = own === undefined ? undefined : dedicatedSession(own)
    if (session !== undefined) yield* Effect.addFinalizer(() => session.close)
    const db = own ?? Option.getOrUndefined(pool)
    const execute = (text: string, name: string, params: ReadonlyArray<unknown>, batched: boolean) =>
      batched && session !== undefined
        ? session.query<ResultRow>(name, text, params)
        : db !== undefined
        ? poolQuery<ResultRow>(db, name, text, params)
        : sql.unsafe<ResultRow>(text, params)

    // Retried (same rows, same event ids: the failed attempt rolled back) only on
    // the races described above; anything else is a defect, logged.
    const attempt = (
      statement: PreparedStatement,
      params: ReadonlyArray<unknown>,
      batched: boolean,
      retries: number
    ): Effect.Effect<ReadonlyArray<ResultRow>> =>
      Effect.catchAll(execute(statement.text, statement.name, params, batched), (error) =>
        retries > 0 && isRetryable(error)
          ? attempt(statement, params, batched, retries - 1)
          : Effect.zipRight(
            Effect.logError("inbound statement failed", String((error.cause as Error | undefined)?.message)),
            Effect.die(error)
          ))

    /** Writes the plans of one or more POSTs in one statement and answers each POST from its share. */
    const write = (plans: ReadonlyArray<InboundPlan>, exact: boolean, inline: boolean): Effect.Effect<ReadonlyArray<PersistResult>> =>
      Effect.flatMap(Clock.currentTimeMillis, (nowMs) => {
        const now = new Date(nowMs)
        const period = currentPeriod(now)
        const plan = mergePlans(plans)
        const statement = statementFor(plan, exact)
        const values: Record<Parameter, () => unknown> = {
          now: () => now.toISOString(),
          period: () => period,
          messages: () => jsonbRows(plan.messages),
          statuses: () => jsonbRows(plan.statuses),
          templates: () => jsonbRows(plan.templates),
          qualities: () => jsonbRows(plan.qualities),
          forwards: () => jsonbRows(plan.forwards),
          inline: () => inline
        }
        const params = statement.names.map((name) => values[name]())
        return Effect.map(attempt(statement, params, !exact, 4), ([row]) => {
          for (const d of json(row!.demand)) {
            if (!exact) addPending(d.account_id, period, d.n)
            else usage.set(d.account_id, { used: d.used ?? d.max, max: d.max, period, expires: Date.now() + CACHE_TTL_MS })
          }
          return shares(plans, {
            inserted: json(row!.inserted),
            refused: row!.refused,
            unknownStatuses: json(row!.unknown_statuses),
            deliveries: json(row!.deliveries).map((d) => ({ ...d, webhook_secret_encrypted: byteaOf(d.webhook_secret_encrypted) })),
            events: row!.events
          })
        })
      })

    const queue = yield* Queue.unbounded<Queued>()
    // Answers are plain callbacks run by the writer; one that throws must neither
    // stop the writer nor make its batch look failed (and be written again).
    const settle = (item: Queued, exit: Exit.Exit<PersistResult>) =>
      Effect.suspend(() => {
        try {
          item.done(exit)
          return Effect.void
        } catch (defect) {
          return Effect.logError("inbound answer failed", Cause.pretty(Cause.die(defect)))
        }
      })
    // A batch that fails is written again POST by POST, so one bad POST fails alone.
    const writeGroup = (items: ReadonlyArray<Queued>): Effect.Effect<void> =>
      Effect.flatMap(Effect.exit(write(items.map((q) => q.plan), false, items[0]!.inline)), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.forEach(items, (item, n) => settle(item, Exit.succeed(exit.value[n]!)), { discard: true })
          : items.length > 1
          ? Effect.forEach(items, (item) => writeGroup([item]), { discard: true })
          : settle(items[0]!, Exit.failCause(exit.cause)))
    // Waiting for work is interruptible; a batch once taken is written and answered
    // even while the service shuts down (a POST must never see its statement cancelled).
    const writer = Effect.uninterruptibleMask((restore) =>
      restore(Queue.take(queue)).pipe(
        Effect.flatMap((first) => Effect.map(Queue.takeUpTo(queue, MAX_BATCH - 1), (rest) => [first, ...rest])),
        Effect.flatMap((items) =>
          Effect.forEach(groupsOf(items), writeGroup, { discard: true }).pipe(
            Effect.ensuring(Effect.sync(() => items.forEach((q) => release(q.demand))))
          )
        )
      )
    ).pipe(Effect.forever)
    yield* Effect.forkScoped(writer)

    /**
     * Queues the plan for the next batch when it may join one (far below the
     * quota, no template or quality update) and calls `done` after the commit;
     * false when it must run alone (`persist` does that). No fiber per POST: the
     * front route's hot path.
     */
    const enqueue = (plan: InboundPlan, options: PersistOptions, done: (exit: Exit.Exit<PersistResult>) => void): boolean => {
      const demand = demandOf(plan)
      if (!isBatchable(plan) || !reserve(demand, currentPeriod(new Date()))) return false
      if (queue.unsafeOffer({ plan, inline: options.inline, demand, done })) return true
      release(demand)
      return false
    }

    /**
     * Writes the plan in its POST's transaction and answers after commit. Far below
     * the quota it joins the next batch; near the cap (or with template and
     * quality updates) it runs alone, consuming quota exactly.
     */
    const persist = (plan: InboundPlan, options: PersistOptions): Effect.Effect<PersistResult> =>
      Effect.async<PersistResult>((resume) => {
        if (!enqueue(plan, options, resume)) resume(alone(plan, options.inline))
      })

    /** A POST written in a statement of its own, consuming quota exactly (and reading the counters again). */
    const alone = (plan: InboundPlan, inline: boolean): Effect.Effect<PersistResult> =>
      Effect.suspend(() => {
        const accounts = [...demandOf(plan).keys()].filter((account) => !rereading.has(account))
        for (const account of accounts) rereading.add(account)
        return Effect.map(write([plan], true, inline), ([result]) => result!).pipe(
          Effect.ensuring(Effect.sync(() => accounts.forEach((account) => rereading.delete(account))))
        )
      })

    return { enqueue, alone, persist, flushUsage: flush } as const
  })
}) {}
