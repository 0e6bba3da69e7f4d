import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The events waiting for fan-out are listed in a table of their own, so fan-out
 * no longer rewrites every event row. Setting events.fanned_out_at was an update
 * of a whole row (its envelope with it) that also changed the partial index's
 * predicate, so Postgres wrote a new row version and an entry in each of the
 * table's three other indexes, plus a row lock, for every event. Now an event's
 * writer adds its id to event_outbox (the trigger below, whoever writes events) and
 * fan-out deletes it: a small row and one index entry, and a delete mark.
 *
 * events.fanned_out_at keeps one meaning: set by a writer that knows nobody
 * listens (the inbound statement, for accounts without an active subscription),
 * such an event never enters the outbox.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create table event_outbox (event_row bigint primary key);
insert into event_outbox (event_row) select id from events where fanned_out_at is null;
drop index events_unfanned_idx;

create function events_to_outbox() returns trigger language plpgsql as $$
begin
  insert into event_outbox (event_row) select id from written where fanned_out_at is null;
  return null;
end $$;
create trigger events_to_outbox after insert on events
  referencing new table as written for each statement execute function events_to_outbox();
`))
