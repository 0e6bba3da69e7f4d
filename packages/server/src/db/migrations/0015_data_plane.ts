import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Indexes of the data plane's reads and of the contact wipe.
 * - messages by contact: the contact_id filter, and the wipe's batches (and the
 *   foreign key's cascade) find a contact's messages without a scan of the table.
 * - conversations by peer: the peer_id filter of conversations and of messages.
 * - deleted contacts: every read hides the rows of a contact marked deleted until
 *   the wipe has run; this partial index is the small set it anti-joins against,
 *   and the set the wipe claims from.
 * - `q` of GET /contacts is a prefix of a name, the username or the phone, compared
 *   lower-cased: one text_pattern_ops index per column (LIKE 'x%' uses a btree only
 *   with that operator class outside the C locale), combined by a BitmapOr.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
create index messages_contact_idx on messages (contact_id, id desc);
create index conversations_peer_idx on conversations (developer_account_id, peer_id);
create index contacts_deleted_idx on contacts (id) where deleted_at is not null;
create index contacts_display_name_prefix_idx on contacts (developer_account_id, lower(display_name) text_pattern_ops);
create index contacts_profile_name_prefix_idx on contacts (developer_account_id, lower(profile_name) text_pattern_ops);
create index contacts_username_prefix_idx on contacts (developer_account_id, lower(username) text_pattern_ops);
create index contacts_phone_prefix_idx on contacts (developer_account_id, phone text_pattern_ops);
`))
