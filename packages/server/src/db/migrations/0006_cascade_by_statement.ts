import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The delivery path's busiest child tables cascade from their parents by statement
 * triggers instead of foreign keys. A foreign key checks every inserted row with a
 * query that locks its parent row FOR KEY SHARE: every event row locked its
 * account, every delivery and attempt row its subscription. With one busy
 * subscription those were thousands of locks a second on ONE row, taken by the
 * fan-out, the recorders and the record's own update of that row at once, which
 * Postgres resolves with a new multixact each time (bench:delivery, Postgres CPU
 * per event: 143-178 us with the keys in 3 runs, 105-131 us without in 6).
 *
 * What the keys gave is kept:
 * - Deleting a parent deletes its rows: one statement per deleting statement
 *   (deliveries first, then attempts: a record that updated a delivery being
 *   deleted has committed its attempt by then, and one that had not finds its row
 *   gone and writes none).
 * - No row outlives its subscription: every statement that inserts deliveries
 *   locks the subscriptions it inserts for FOR KEY SHARE once (what the key did per
 *   row), so a concurrent delete waits for it or it sees the subscription gone.
 * - Events: no route deletes an account; events are written by statements that
 *   read their account's channel or conversation, and an account's deletion
 *   (operators, tests) deletes its events.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table webhook_deliveries drop constraint webhook_deliveries_subscription_id_fkey;
alter table delivery_attempts drop constraint delivery_attempts_subscription_id_fkey;
alter table events drop constraint events_developer_account_id_fkey;

create function webhook_subscriptions_cascade() returns trigger language plpgsql as $$
begin
  delete from webhook_deliveries d using gone g where d.subscription_id = g.id;
  delete from delivery_attempts a using gone g where a.subscription_id = g.id;
  return null;
end $$;
create trigger webhook_subscriptions_cascade after delete on webhook_subscriptions
  referencing old table as gone for each statement execute function webhook_subscriptions_cascade();

create function developer_accounts_cascade() returns trigger language plpgsql as $$
begin
  delete from events e using gone g where e.developer_account_id = g.id;
  return null;
end $$;
create trigger developer_accounts_cascade after delete on developer_accounts
  referencing old table as gone for each statement execute function developer_accounts_cascade();
`))
