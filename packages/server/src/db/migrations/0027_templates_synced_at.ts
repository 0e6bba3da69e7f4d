import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * When a channel's templates were last synced (POST /templates/sync): after a sync the platform
 * knows every template the channel's WABA has, so a send naming one the channel has never had
 * is refused locally (422 with a hint to sync) instead of going to Meta for its 132001.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table platform_channels add column templates_synced_at timestamptz;
`))
