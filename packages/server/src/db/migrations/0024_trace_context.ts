import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The span that caused an event (a W3C traceparent: the inbound POST, the API request),
 * kept with the event and copied to its deliveries by fan-out, and with the raw-forward
 * rows of an inbound POST: a delivery attempt, in whichever process and however much
 * later, links its span to it. Null without tracing. Nullable columns without a default:
 * adding them rewrites no row.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table events add column trace_parent text;
alter table webhook_deliveries add column trace_parent text;
alter table platform_deliveries add column trace_parent text;
`))
