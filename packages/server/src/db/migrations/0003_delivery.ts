import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The normalized delivery engine (issue 7): a staging table for buffered
 * subscriptions, the subscription of each attempt (auto-pause counts attempts
 * per subscription over 15 minutes), and the index that finds stuck leases.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
-- Envelopes waiting for their (subscription, event type) window to close; the
-- buffer worker turns them into one batch delivery row and deletes them.
create table webhook_buffer_items (
  id bigint generated always as identity primary key,
  subscription_id bigint not null references webhook_subscriptions(id) on delete cascade,
  developer_account_id bigint not null,
  platform_channel_id bigint,
  event_type text not null,
  event_id text not null,
  envelope jsonb not null,
  created_at timestamptz not null
);
create index webhook_buffer_items_group_idx on webhook_buffer_items (subscription_id, event_type, id);

alter table delivery_attempts add column subscription_id bigint;
create index delivery_attempts_subscription_idx on delivery_attempts (subscription_id, created_at);
create index delivery_attempts_delivery_idx on delivery_attempts (delivery_id);

create index webhook_deliveries_lease_idx on webhook_deliveries (delivering_since) where status = 'delivering';
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);
`))
