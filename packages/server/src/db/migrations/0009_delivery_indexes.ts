import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Two indexes of webhook_deliveries change.
 *
 * - webhook_deliveries_redelivery_idx: the key `redelivery_of ... on delete set
 *   null` looks, for EVERY delivery row deleted, for the rows that name it, and
 *   with no index on the column that was a scan of the whole table per deleted
 *   row. Deleting a subscription (which deletes its deliveries) took time
 *   quadratic in its deliveries: 2.0 s with 5,000 of them, 37.5 s with 20,000. A
 *   partial index holds only the redeliveries (rare), so no other write pays for it.
 * - webhook_deliveries_subscription_idx is dropped: every delivery row version
 *   (the insert, and the rewrite of every attempt's record, which changes its
 *   status and so cannot be a HOT update) wrote an entry in it, and only a
 *   subscription's deletion read it. That deletion finds the rows through the
 *   account index now (a subscription's deliveries are all in its account), and
 *   the deliveries list filters a subscription within the account's rows, as it
 *   filters a channel, a status or an event type. bench:delivery: two index
 *   entries less per delivered event (WAL per event D 3,122 -> 2,973 bytes).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create index webhook_deliveries_redelivery_idx on webhook_deliveries (redelivery_of) where redelivery_of is not null;
drop index webhook_deliveries_subscription_idx;

create or replace function webhook_subscriptions_cascade() returns trigger language plpgsql as $$
begin
  delete from webhook_deliveries d using gone g
  where d.developer_account_id = g.developer_account_id and d.subscription_id = g.id;
  delete from delivery_attempts a using gone g where a.subscription_id = g.id;
  delete from delivery_attempt_counts c using gone g where c.subscription_id = g.id;
  return null;
end $$;
`))
