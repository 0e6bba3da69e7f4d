import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Envelopes are stored as the bytes a receiver gets: `json` (text kept as written)
 * instead of `jsonb` (a parsed tree, keys re-sorted). Every writer stores compact
 * JSON with the top-level keys in SPEC §6.2 order (domain/events.ts: envelopeSql in
 * SQL, Events.write in code), and the dispatcher sends the stored text as it is.
 * Before, each delivered event cost a jsonb_in when written, a jsonb_out when
 * fanned out, and a JSON.parse, a re-ordering and a JSON.stringify before its POST.
 *
 * parked_statuses.envelope (a status's upstream error, which becomes the `error` of
 * its event's data once its message is found) is stored the same way, so it goes
 * into the envelope as it came.
 *
 * Rows written before this migration keep the text Postgres gives their jsonb (keys
 * by length, `": "` separators): still the same JSON, delivered in that form.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table events alter column envelope type json using envelope::json;
alter table webhook_deliveries alter column envelope type json using envelope::json;
alter table webhook_buffer_items alter column envelope type json using envelope::json;
alter table parked_statuses alter column envelope type json using envelope::json;
`))
