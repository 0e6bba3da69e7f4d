import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Two storage settings of webhook_deliveries, for the rows the engine writes and
 * then updates (a record: delivering -> delivered, or pending -> delivering ->
 * delivered for a conversation's rows).
 * - fillfactor 50: inserts leave half of each page free, so a record's update
 *   (never HOT: status is in the partial indexes' predicates) writes its new
 *   version on the same page. On a full page it went to another one, and Postgres
 *   first WAL-logs a lock of the old version (Heap/LOCK) for each such update:
 *   pg_waldump over bench:delivery counted one for 79% of the updates, 39% with
 *   fillfactor 70, none with 50.
 * - webhook_deliveries_account_idx ascending: new ids are the greatest of their
 *   account, so inserts land at the right end of its range, where a page split
 *   leaves the left page full (Postgres splits after an ascending new item),
 *   instead of the left end, where each split left two half-empty pages (200,000
 *   ids over two accounts: 6 MB of index instead of 11). The
 *   deliveries API reads it in either direction (id desc is a backward scan).
 * bench:delivery, WAL per event: D 1,899-1,912 bytes -> 1,750-1,760, O 2,538-2,553
 * -> 2,313-2,331 (3 rounds each). Throughput moved less than its noise.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table webhook_deliveries set (fillfactor = 50);
drop index webhook_deliveries_account_idx;
create index webhook_deliveries_account_idx on webhook_deliveries (developer_account_id, id);
`))
