import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The template sweep also settles creates whose process died between the insert and the final
 * write: rows still pending without Meta's id and under no edit, oldest first. Such rows are few
 * (a create holds that state for seconds), so a partial index keeps the sweep's 30 s query from
 * scanning the whole table.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create index templates_submitting_idx on templates (created_at)
  where meta_template_id is null and edit_started_at is null and lower(meta_status) = 'pending';
`))
