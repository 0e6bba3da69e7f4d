import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * Recipients of a broadcast are deduplicated by to_key (domain/broadcast-recipient-key.ts:
 * the digits of the number on a chat channel, the exact text on a social one) rather
 * than by the raw `to`, which let one number loaded in three formats be sent the
 * template three times. The backfill computes the same key ('[^0-9]' as the code's,
 * not '\D', whose digits follow the locale). Recipients loaded before this that
 * repeat an earlier recipient's number stay (they may be sent already, and count in
 * recipient_count) under a key of their own, '#' and their id. They are all on chat
 * channels (the old unique ("to") kept exact repeats out), where no key of the code
 * has both a '#' and digits, so it meets no other key, and a later load of that
 * number meets the first recipient's key and is a duplicate. Named 0019: 0017 was reverted, 0018 is taken.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table broadcast_recipients add column to_key text;
update broadcast_recipients r set to_key = case when k.nth = 1 then k.key else '#' || r.id end
from (
  select r.id, x.key, row_number() over (partition by r.broadcast_id, x.key order by r.id) as nth
  from broadcast_recipients r
  join broadcasts b on b.id = r.broadcast_id
  join platform_channels c on c.id = b.platform_channel_id
  cross join lateral (
    select case when c.type = 'chat' then coalesce(nullif(regexp_replace(r."to", '[^0-9]', '', 'g'), ''), r."to") else r."to" end as key
  ) x
) k
where r.id = k.id;
alter table broadcast_recipients alter column to_key set not null;
create unique index broadcast_recipients_to_key on broadcast_recipients (broadcast_id, to_key);
`))
