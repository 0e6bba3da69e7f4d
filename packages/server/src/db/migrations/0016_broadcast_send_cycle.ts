import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The broadcast send cycle (SPEC §3.3). A recipient is claimed by setting
 * claimed_until (a lease) under FOR UPDATE SKIP LOCKED, so two workers never take
 * the same one, and one whose worker died is taken again once the lease expires
 * instead of being lost. quota_counted records that the broadcast consumed its
 * month's broadcasts quota (first schedule or send), so a cancel and a new send
 * do not count it twice.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table broadcast_recipients add column claimed_until timestamptz;
alter table broadcasts add column quota_counted boolean not null default false;
create index broadcasts_sending_idx on broadcasts (id) where status = 'sending';
`))
