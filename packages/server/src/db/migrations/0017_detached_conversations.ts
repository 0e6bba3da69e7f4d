import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * DELETE /contacts/{id} detaches the contact's conversations (detached_at) in its
 * own commit, long before the contact wipe removes them. A conversation is unique
 * per (channel, peer) only while attached, so the same person writing (or written
 * to) meanwhile opens a new conversation instead of joining the hidden one, and
 * the detached one keeps its peer_id for the events of its messages' late statuses.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table conversations add column detached_at timestamptz;
alter table conversations drop constraint conversations_platform_channel_id_peer_id_key;
create unique index conversations_peer_key on conversations (platform_channel_id, peer_id) where detached_at is null;
`))
