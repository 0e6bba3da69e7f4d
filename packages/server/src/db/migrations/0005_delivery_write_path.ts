import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Less work per delivery on its write path (every delivery row is inserted, then
 * rewritten at least once; every attempt adds a row), same cascades:
 * - webhook_deliveries_event_idx: no statement looks deliveries up by event id.
 * - webhook_deliveries -> developer_accounts: the subscription's key already
 *   ties a delivery to its account and cascades with it (account -> subscriptions
 *   -> deliveries); the second key only cost a check on every insert.
 * - delivery_attempts: read only by auto-pause, per subscription and time. Its
 *   rows now cascade from their subscription (as their delivery does) instead of
 *   from the delivery, which no statement deletes; the account and delivery
 *   indexes served no query.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
drop index webhook_deliveries_event_idx;
alter table webhook_deliveries drop constraint webhook_deliveries_developer_account_id_fkey;

alter table delivery_attempts drop constraint delivery_attempts_delivery_id_fkey;
alter table delivery_attempts add constraint delivery_attempts_subscription_id_fkey
  foreign key (subscription_id) references webhook_subscriptions(id) on delete cascade;
drop index delivery_attempts_account_idx;
drop index delivery_attempts_delivery_idx;
`))
