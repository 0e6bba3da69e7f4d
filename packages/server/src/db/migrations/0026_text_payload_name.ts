import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * A text message's words are `payload.text` on every stored message (SPEC's name, as in the send
 * and the events): chat messages received before kept WhatsApp's `body`, and outbound texts kept
 * their words only in the `text` column. Rows whose payload already has `text` are left alone.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
update messages set payload = jsonb_build_object('text', payload -> 'body') || (payload - 'body')
  where type = 'text' and jsonb_typeof(payload) = 'object' and payload ? 'body' and not payload ? 'text';
update messages set payload = jsonb_build_object('text', text) || payload
  where type = 'text' and direction = 'outbound' and jsonb_typeof(payload) = 'object' and not payload ? 'text';
`))
