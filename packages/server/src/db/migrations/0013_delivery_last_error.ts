import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Why a delivery's last attempt failed ("connection refused (ECONNREFUSED)", "no
 * response within 10000 ms", "HTTP 503", the SSRF guard's refusal), shown by the
 * deliveries API beside response_status: an attempt without an answer left
 * nothing there, and its reason only in delivery_attempts, which no route reads.
 * Null until an attempt fails, and again once one is delivered.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table webhook_deliveries add column last_error text;
`))
