import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/*
 * A delivery made by fan-out no longer copies its event's envelope: the event row
 * keeps it, and whoever needs a delivery's payload (the claims, a conversation's
 * next turn, GET .../deliveries/{id}?include=full_envelope, a redelivery) reads
 * `coalesce(d.envelope, the event's)` through the unique event_id (envelope.ts,
 * deliveryEnvelope). Rows that carry a payload of their own keep it in the column:
 * buffered batches, the test route's samples, conversation.inactive.
 *
 * The copy was written twice per delivered event, in the insert and in the record's
 * rewrite of the row (a status change, never a HOT update, so the whole row again):
 * bench:delivery WAL per event D 2,972 -> 1,976 bytes. Events are never deleted
 * apart from their account (with its subscriptions and deliveries); a retention of
 * events would have to keep the ones deliveries still name.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`
alter table webhook_deliveries alter column envelope drop not null;
`))
