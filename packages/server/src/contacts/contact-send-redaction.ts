import type { SqlClient } from "@effect/sql"
import { IDEMPOTENCY_TTL_HOURS } from "@platform/shared"
import { Effect } from "effect"
import { recipientKey } from "../broadcasts/broadcast-recipient-key.js"
import { RECIPIENT_STATE_SQL } from "../broadcasts/broadcast-recipient-state.js"
import { REDACTED } from "./contact-redaction.js"
import { deletedSuffix, type WipeProgress, wipeProgress } from "./contact-wipe-progress.js"
import { STALE_IN_FLIGHT_SECONDS } from "../messages/idempotency.js"

/*
 * The records of sends to a deleted contact that are not its messages: the broadcast
 * recipients that were sent to the person, and the replies of POST /messages stored
 * under an Idempotency-Key. Both are part of ContactWipe (contact-wipe.ts).
 */

/**
 * The first part of a contact's wipe, before its messages go (their status is what a
 * recipient's state is read from): every recipient that was sent to the person (any
 * status but pending) in a broadcast of the account has its `to` replaced by REDACTED,
 * its `to_key` by '#' and its id (migration 0019's key of its own, which no load
 * meets) and its meta_message_id (the upstream id, which names the number) by null;
 * its state as the recipients route showed it (broadcast-recipient-state.ts) is
 * written to its status, and a failure reported for its message to its error, so the
 * route's counts and each row's status, error and updated_at stay as they were.
 * A recipient still pending is left: the broadcast is yet to send to that number,
 * and that send, as any after the DELETE, starts a new contact.
 *
 * The person is the key loads compute for a number (broadcast-recipient-key.ts), the
 * digits of the contact's phone or of its conversations' peer; broadcasts run on chat
 * channels only, and a number is one WhatsApp user on every chat channel of the
 * account, so a social contact has no recipients and a chat contact's are looked for
 * in every broadcast of the account. No index finds a recipient by key across
 * broadcasts: the account's broadcasts are walked by broadcasts_account_idx, `size` a
 * call, each probed on broadcast_recipients_to_key (broadcast_id, to_key), the
 * position kept in contact_wipe_progress (stage 'recipients'; 'messages' once the
 * walk is done).
 * True when the walk is done.
 */
export const redactRecipientsStep = (
  sql: SqlClient.SqlClient,
  contact: { readonly id: number; readonly accountId: number },
  size: number
) =>
  Effect.gen(function*() {
    const { read, save } = wipeProgress(sql, contact.id)
    const saved = yield* read
    if (saved !== undefined && saved.stage !== "recipients") return true
    const done = save({ stage: "messages", after_id: 0, until_id: 0 }).pipe(Effect.as(true))

    const [person] = yield* sql<{ phone: string | null; type: "chat" | "social" }>`select k.phone, c.type
      from contacts k join platform_channels c on c.id = k.platform_channel_id where k.id = ${contact.id}`
    if (person?.type !== "chat") return yield* done
    const peers = yield* sql<{ peer_id: string }>`select peer_id from conversations where platform_contact_id = ${contact.id}`
    const suffix = deletedSuffix(contact.id)
    const numbers = [person.phone, ...peers.map((p) => p.peer_id.endsWith(suffix) ? p.peer_id.slice(0, -suffix.length) : p.peer_id)]
    const keys = [...new Set(numbers.filter((p): p is string => p !== null && p !== "").map((p) => recipientKey("chat", p)))]
    if (keys.length === 0) return yield* done

    let progress: WipeProgress
    if (saved === undefined) {
      const [last] = yield* sql<{ id: number | null }>`select max(id) as id from broadcasts
        where developer_account_id = ${contact.accountId}`
      if (last?.id == null) return yield* done
      progress = { stage: "recipients", after_id: 0, until_id: Number(last.id) }
    } else {
      progress = saved
    }

    const [walked] = yield* sql<{ scanned: number; last: number | null }>`
      with b as (
        select b.id, b.platform_channel_id from broadcasts b
        where b.developer_account_id = ${contact.accountId} and b.id > ${progress.after_id} and b.id <= ${progress.until_id}
        order by b.id limit ${size}
      ),
      hit as (
        select r.id, ${sql.unsafe(RECIPIENT_STATE_SQL)} as state,
          case when r.status = 'sent' and m.status = 'failed' then m.error else r.error end as error
        from b
        join broadcast_recipients r on r.broadcast_id = b.id and r.to_key = any(${keys}::text[])
        left join messages m on m.platform_channel_id = b.platform_channel_id and m.meta_message_id = r.meta_message_id
        where r.status <> 'pending'
      ),
      redacted as (
        update broadcast_recipients r set "to" = ${REDACTED}, to_key = '#' || r.id, meta_message_id = null,
          status = hit.state, error = hit.error
        from hit where r.id = hit.id
        returning 1
      )
      select (select count(*)::int from b) as scanned, (select max(id) from b) as last`
    if ((walked?.scanned ?? 0) < size) return yield* done
    yield* save({ ...progress, after_id: Number(walked!.last) })
    return false
  })

/**
 * A POST /messages reply is stored for IDEMPOTENCY_TTL_HOURS (and kept after, until
 * its key is claimed again) as {channel_id, message_id, type}: message_id is the
 * upstream id of the message, which names the number (a WhatsApp id encodes it). The
 * reply's row has no index by message id (idempotency_keys is on the send path, and
 * gets none for this), but its expires_at is its claim's now() plus the TTL, and the
 * message was recorded after that claim, within STALE_IN_FLIGHT_SECONDS (past which
 * the claim is taken over as dead): each of `sent` (outbound messages of the API,
 * being deleted) is one probe of idempotency_keys_expiry_idx over that window.
 * The replies found have message_id replaced by REDACTED, key order kept: a retry
 * with the key still replays, with no second send. Failed sends (502) store the
 * upstream error and no id: they cannot be told apart by person and are left.
 */
export const redactRepliesStep = (
  sql: SqlClient.SqlClient,
  accountId: number,
  sent: ReadonlyArray<{ readonly meta_message_id: string; readonly created_at: string }>
) =>
  Effect.gen(function*() {
    if (sent.length === 0) return 0
    const found = yield* sql<{ key: string; response_body: string }>`select k.key, k.response_body
      from unnest(${sent.map((s) => s.meta_message_id)}::text[], ${sent.map((s) => s.created_at)}::timestamptz[])
        as s(meta_message_id, created_at)
      cross join lateral (
        select k.key, k.response_body from idempotency_keys k
        where k.expires_at <= s.created_at + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
          and k.expires_at >= s.created_at + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}, secs => ${-STALE_IN_FLIGHT_SECONDS})
          and k.developer_account_id = ${accountId} and k.status = 'completed' and k.response_status = 200
          and k.response_body::json ->> 'message_id' = s.meta_message_id
      ) k`
    if (found.length === 0) return 0
    const bodies = found.map((row) => JSON.stringify({ ...JSON.parse(row.response_body), message_id: REDACTED }))
    yield* sql`update idempotency_keys k set response_body = u.body
      from unnest(${found.map((row) => row.key)}::text[], ${bodies}::text[]) as u(key, body)
      where k.developer_account_id = ${accountId} and k.key = u.key`
    return found.length
  })
