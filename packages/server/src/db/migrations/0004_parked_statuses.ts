import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * 1. Status callbacks that arrive before the send that caused them is recorded
 *    (Meta answers the send and fires `sent`/`delivered`/`read` at once; the send
 *    writes its row only after the upstream answers). The inbound statement parks
 *    them here; the send's record statement applies and deletes them; the sweep
 *    applies the ones a concurrent send missed and drops the expired ones.
 * 2. conversations.created_event_id: the conversation.created event written for
 *    the conversation (null until its first inbound message or echo). A send
 *    opens the row without the event, so "the row exists" no longer means "the
 *    event was written".
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create table parked_statuses (
  id bigint generated always as identity primary key,
  platform_channel_id bigint not null references platform_channels(id) on delete cascade,
  meta_message_id text not null,
  status text not null,
  envelope jsonb,
  event_id text not null,
  received_at timestamptz not null default now(),
  expires_at timestamptz not null,
  unique (platform_channel_id, meta_message_id, status)
);
create index parked_statuses_expiry_idx on parked_statuses (expires_at);

alter table conversations add column created_event_id text;
-- Conversations that already saw an inbound message or an echo had their event written.
update conversations c set created_event_id = 'migrated' where exists (
  select 1 from messages m where m.conversation_id = c.id and (m.direction = 'inbound' or m.source = 'app_echo'));
`))
