import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The whole product's schema. Column names are SPEC's wire names, so rows map
 * onto resources without renaming. Ids are bigint identities parsed as JS
 * numbers (see db/client.ts); timestamps are timestamptz.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create table developer_accounts (
  id bigint generated always as identity primary key,
  name text not null,
  plan text not null default 'free' check (plan in ('free','lite','pro','business')),
  is_demo boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table users (
  id bigint generated always as identity primary key,
  email text not null,
  name text not null,
  password_hash text not null,
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table account_members (
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  user_id bigint not null references users(id) on delete cascade,
  role text not null check (role in ('owner','admin','developer')),
  created_at timestamptz not null default now(),
  primary key (developer_account_id, user_id)
);
create index account_members_user_idx on account_members (user_id);

create table sessions (
  id text primary key,
  user_id bigint not null references users(id) on delete cascade,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);

create table api_keys (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  name text not null,
  prefix text not null,
  key_hash bytea not null unique,
  scopes text[] not null,
  is_active boolean not null default true,
  expires_at timestamptz,
  last_used_at timestamptz,
  rate_limit_per_minute integer not null default 60 check (rate_limit_per_minute > 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index api_keys_account_idx on api_keys (developer_account_id, id desc);

-- One row per (account, calendar month UTC, metric); consumed with a conditional
-- UPDATE so that concurrent requests can never overshoot a hard plan limit.
create table usage_counters (
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  period date not null,
  metric text not null check (metric in ('inbound_messages','template_messages','broadcasts')),
  used bigint not null default 0,
  primary key (developer_account_id, period, metric)
);

create table platform_channels (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  type text not null check (type in ('chat','social')),
  name text,
  status text not null default 'connected' check (status in ('connected','disconnected')),
  is_active boolean not null default true,
  phone_number_id text,
  waba_id text,
  display_phone_number text,
  social_id text,
  access_token_encrypted bytea,
  inbound_enabled boolean not null default true,
  quality_rating text,
  throughput_per_second integer,
  webhook_url text,
  webhook_secret_encrypted bytea,
  connected_at timestamptz not null default now(),
  disconnected_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index platform_channels_account_idx on platform_channels (developer_account_id, id desc);
create unique index platform_channels_phone_number_key on platform_channels (phone_number_id) where is_active and phone_number_id is not null;
create unique index platform_channels_social_key on platform_channels (social_id) where is_active and social_id is not null;
create index platform_channels_waba_idx on platform_channels (waba_id) where is_active;

create table contacts (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  chat_id text,
  social_id text,
  business_scoped_user_id text,
  phone text,
  username text,
  profile_name text,
  display_name text check (char_length(display_name) <= 255),
  contact_metadata jsonb not null default '{}'::jsonb,
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index contacts_chat_key on contacts (platform_channel_id, chat_id) where chat_id is not null;
create unique index contacts_social_key on contacts (platform_channel_id, social_id) where social_id is not null;
create index contacts_account_idx on contacts (developer_account_id, id desc);

create table conversations (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  platform_contact_id bigint references contacts(id) on delete set null,
  peer_id text not null,
  status text not null default 'active' check (status in ('active','ended')),
  created_at timestamptz not null default now(),
  ended_at timestamptz,
  last_active_at timestamptz not null default now(),
  last_message_direction text check (last_message_direction in ('inbound','outbound')),
  last_message_preview text,
  message_count integer not null default 0,
  inbound_count integer not null default 0,
  outbound_count integer not null default 0,
  unique (platform_channel_id, peer_id)
);
create index conversations_account_idx on conversations (developer_account_id, id desc);
create index conversations_active_idx on conversations (developer_account_id, last_active_at) where status = 'active';

create table messages (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  conversation_id bigint references conversations(id) on delete cascade,
  contact_id bigint references contacts(id) on delete cascade,
  direction text not null check (direction in ('inbound','outbound')),
  source text not null check (source in ('contact','api','app_echo','broadcast')),
  type text not null,
  text text,
  payload jsonb not null default '{}'::jsonb,
  media_id text,
  status text,
  meta_message_id text,
  error jsonb,
  created_at timestamptz not null default now(),
  status_updated_at timestamptz
);
-- Meta delivers at least once: the upstream id is the deduplication key.
create unique index messages_upstream_key on messages (platform_channel_id, meta_message_id) where meta_message_id is not null;
create index messages_account_idx on messages (developer_account_id, id desc);
create index messages_conversation_idx on messages (conversation_id, id desc);

create table templates (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint references platform_channels(id) on delete cascade,
  name text not null,
  language_code text not null,
  category text not null,
  body_text text not null default '',
  variables jsonb not null default '[]'::jsonb,
  components jsonb,
  parameter_format text check (parameter_format in ('NAMED','POSITIONAL')),
  header_format text,
  is_active boolean not null default true,
  meta_status text,
  meta_category text,
  meta_template_id text,
  meta_rejection_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (platform_channel_id, name, language_code)
);
create index templates_account_idx on templates (developer_account_id, id desc);
create index templates_upstream_idx on templates (meta_template_id) where meta_template_id is not null;

-- Metadata only: the service stores no binaries.
create table media (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  media_id text not null,
  mime_type text,
  file_size bigint,
  filename text,
  created_at timestamptz not null default now(),
  deleted_at timestamptz,
  unique (platform_channel_id, media_id)
);

create table webhook_subscriptions (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint references platform_channels(id) on delete cascade,
  target_url text not null,
  description text,
  event_types text[] not null default '{}',
  custom_headers jsonb,
  buffer_window_seconds integer check (buffer_window_seconds between 1 and 60),
  buffer_max_batch integer check (buffer_max_batch between 1 and 100),
  inactivity_minutes integer check (inactivity_minutes between 1 and 1440),
  is_active boolean not null default true,
  is_paused boolean not null default false,
  paused_reason text,
  failure_count integer not null default 0,
  last_delivery_at timestamptz,
  secret_encrypted bytea not null,
  previous_secret_encrypted bytea,
  previous_secret_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_subscriptions_account_idx on webhook_subscriptions (developer_account_id, id desc);

-- The outbox: written in the transaction that caused the event, fanned out after commit.
create table events (
  id bigint generated always as identity primary key,
  event_id text not null unique,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint,
  event_type text not null,
  conversation_peer text,
  envelope jsonb not null,
  occurred_at timestamptz not null default now(),
  fanned_out_at timestamptz
);
create index events_unfanned_idx on events (id) where fanned_out_at is null;
create index events_account_idx on events (developer_account_id, id);

create table webhook_deliveries (
  id bigint generated always as identity primary key,
  subscription_id bigint not null references webhook_subscriptions(id) on delete cascade,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint,
  event_id text not null,
  event_type text not null,
  conversation_peer text,
  status text not null default 'pending' check (status in ('pending','delivering','delivered','failed')),
  attempts integer not null default 0,
  next_retry_at timestamptz,
  delivering_since timestamptz,
  response_status integer,
  response_body_snippet text,
  latency_ms integer,
  envelope jsonb not null,
  is_batch boolean not null default false,
  batch_closes_at timestamptz,
  redelivery_of bigint references webhook_deliveries(id) on delete set null,
  created_at timestamptz not null default now(),
  delivered_at timestamptz,
  updated_at timestamptz not null default now()
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_retry_at) where status = 'pending';
create index webhook_deliveries_order_idx on webhook_deliveries (subscription_id, conversation_peer, id) where status in ('pending','delivering') and conversation_peer is not null;
create index webhook_deliveries_account_idx on webhook_deliveries (developer_account_id, id desc);
create index webhook_deliveries_subscription_idx on webhook_deliveries (subscription_id, created_at);
create index webhook_deliveries_open_batch_idx on webhook_deliveries (subscription_id, event_type) where batch_closes_at is not null and status = 'pending';

create table delivery_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries(id) on delete cascade,
  developer_account_id bigint not null,
  attempt integer not null,
  outcome text not null check (outcome in ('delivered','failed')),
  response_status integer,
  latency_ms integer,
  error text,
  created_at timestamptz not null default now()
);
create index delivery_attempts_account_idx on delivery_attempts (developer_account_id, id);

-- Raw forward (SPEC 6.5): the exact compact body is stored so every retry sends the same bytes.
create table platform_deliveries (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  status text not null default 'pending' check (status in ('pending','delivering','delivered','failed')),
  attempts integer not null default 0,
  next_retry_at timestamptz not null default now(),
  body text not null,
  response_status integer,
  response_body_snippet text,
  last_error text,
  created_at timestamptz not null default now(),
  delivered_at timestamptz,
  updated_at timestamptz not null default now()
);
create index platform_deliveries_due_idx on platform_deliveries (next_retry_at) where status in ('pending','delivering');
create index platform_deliveries_account_idx on platform_deliveries (developer_account_id, id desc);

create table conversation_inactivity_notices (
  subscription_id bigint not null references webhook_subscriptions(id) on delete cascade,
  conversation_id bigint not null references conversations(id) on delete cascade,
  notified_for timestamptz not null,
  primary key (subscription_id, conversation_id)
);

create table broadcasts (
  id bigint generated always as identity primary key,
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  name text not null,
  template_name text not null,
  language_code text not null,
  components jsonb,
  status text not null default 'draft' check (status in ('draft','scheduled','sending','completed','failed')),
  recipient_count integer not null default 0,
  scheduled_at timestamptz,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index broadcasts_account_idx on broadcasts (developer_account_id, id desc);
create index broadcasts_due_idx on broadcasts (scheduled_at) where status in ('scheduled','sending');

create table broadcast_recipients (
  id bigint generated always as identity primary key,
  broadcast_id bigint not null references broadcasts(id) on delete cascade,
  "to" text not null,
  components jsonb,
  status text not null default 'pending' check (status in ('pending','sent','delivered','read','responded','failed')),
  meta_message_id text,
  error jsonb,
  sent_at timestamptz,
  updated_at timestamptz not null default now(),
  unique (broadcast_id, "to")
);
create index broadcast_recipients_pending_idx on broadcast_recipients (broadcast_id, id) where status = 'pending';
create index broadcast_recipients_upstream_idx on broadcast_recipients (meta_message_id) where meta_message_id is not null;

create table idempotency_keys (
  developer_account_id bigint not null references developer_accounts(id) on delete cascade,
  key text not null check (char_length(key) between 1 and 255),
  request_hash text not null,
  status text not null default 'in_flight' check (status in ('in_flight','completed')),
  response_status integer,
  response_body text,
  response_headers jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (developer_account_id, key)
);
create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);
`))
