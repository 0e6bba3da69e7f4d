import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * The contact wipe also forgets the person in broadcast recipients
 * (domain/contact-send-redaction.ts). Its progress gains two stages before
 * the redaction's: 'recipients' (the walk over the account's broadcasts, its last
 * broadcast id kept) and 'messages' (that walk done, the messages being deleted).
 * A redacted recipient's `to` reads '[redacted]' in every broadcast it was in, so
 * the old unique (broadcast_id, "to") goes: it is implied by the unique
 * (broadcast_id, to_key) of 0019 (one `to` has one key), which stays the rule.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table contact_wipe_progress drop constraint contact_wipe_progress_stage_check;
alter table contact_wipe_progress add constraint contact_wipe_progress_stage_check
  check (stage in ('recipients','messages','events','buffer','deliveries'));
alter table broadcast_recipients drop constraint broadcast_recipients_broadcast_id_to_key;
`))
