import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The expired rows prune (domain/expired-rows.ts) deletes sessions past expires_at in
 * batches of the oldest first; without an index each batch would scan the whole table.
 * idempotency_keys has had its expiry index since 0001.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create index sessions_expiry_idx on sessions (expires_at);
`))
