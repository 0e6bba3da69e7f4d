import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * A PATCH of a template marks the row pending before it calls the upstream and writes the
 * final state after. A process that dies in between left the row pending for good (every
 * later PATCH 409) unless a callback or a sync happened to move it on. The edit now records
 * when it started and the status it replaced: an edit older than its bound is a dead one,
 * which the template sweep settles from the upstream (or puts the replaced status back
 * when the upstream never got the template).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table templates add column edit_started_at timestamptz, add column edit_previous_status text;
create index templates_edit_started_idx on templates (edit_started_at) where edit_started_at is not null;
`))
