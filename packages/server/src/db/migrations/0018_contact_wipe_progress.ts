import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Where the wipe of a deleted contact stands in redacting the copies of its data
 * that outlive its rows: its events' envelopes, then the buffered envelopes, then
 * the deliveries that carry an envelope of their own (domain/contact-redaction.ts).
 * Each stage walks an id range of one table in bounded batches; the range and the
 * last id done are kept here so a crash resumes where it stopped instead of
 * scanning the range again. The row goes with the contact's (the wipe deletes it
 * last). Named 0018: 0017 was a migration since reverted, and a database that
 * ran it must still run this one.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create table contact_wipe_progress (
  contact_id bigint primary key references contacts(id) on delete cascade,
  stage text not null check (stage in ('events','buffer','deliveries')),
  after_id bigint not null,
  until_id bigint not null
);
`))
