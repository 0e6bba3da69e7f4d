import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The deliveries API's `errors_only` (and `status=failed`) filter read the
 * account's whole index before finding its rows when the dead letters are few
 * and old, which is what a healthy account's are. A partial index holds only the
 * failed rows: the engine's inserts and records (a row turns 'failed' only at its
 * last attempt) do not maintain it for any other row. (The subscription filter
 * still walks the account's rows: migration 0009 dropped its index for the write path.)
 * bench:deliveries-list (200,100 deliveries, 50 failed, the oldest): errors_only
 * 31.6 ms -> 1.9 ms (median of 20; subscription_id and event_type unchanged, 26-41 ms).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create index webhook_deliveries_failed_idx on webhook_deliveries (developer_account_id, id) where status = 'failed';
`))
