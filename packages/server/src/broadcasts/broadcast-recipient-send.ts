import type { SqlClient } from "@effect/sql"
import type { SendMessage } from "@platform/shared"
import { Effect } from "effect"
import type { UpstreamCallError } from "../upstream/errors.js"
import type { UsableChannel } from "../channels/channel-credentials.js"
import type { Messages } from "../messages/messages.js"
import type { RecipientOutcome } from "../messages/message-statements.js"

/** Refused for throughput, ours or Meta's (130429, call rate limits): the upstream accepted nothing. */
const refusedForThroughput = (e: UpstreamCallError) =>
  e._tag === "UpstreamThrottled" || (e._tag === "UpstreamError" && (e.kind === "throughput_limited" || e.kind === "rate_limited"))

const untimed = () => {}

/** The claimed recipient's outcome, written in its message's record (see RecipientOutcome). */
const recipientOutcome = (sql: SqlClient.SqlClient, recipientId: number): RecipientOutcome => ({
  sent: (upstreamId) =>
    sql`
      update broadcast_recipients set status = 'sent', meta_message_id = ${upstreamId}, sent_at = now(),
        updated_at = now(), claimed_until = null, error = null
      where id = ${recipientId}
      returning 1`,
  failed: (error) =>
    sql`
      update broadcast_recipients set status = 'failed', error = ${JSON.stringify(error)}::jsonb, updated_at = now(),
        claimed_until = null
      where id = ${recipientId}
      returning 1`
})

/** A recipient refused before any upstream call: failed with the reason, no message record. */
const recipientRefused = (
  sql: SqlClient.SqlClient,
  recipientId: number,
  error: { readonly error: string; readonly message: string }
) =>
  sql`
    update broadcast_recipients set status = 'failed', error = ${JSON.stringify(error)}::jsonb, updated_at = now(),
      claimed_until = null
    where id = ${recipientId} and status = 'pending'`.pipe(Effect.orDie, Effect.as("failed" as const))

/**
 * The recipients of this process whose send the upstream answered and whose record
 * is held until the database returns (HeldOutcomes): their claim's lease may run out
 * during the outage, and a pass that claimed one again would send it twice, so
 * passes of this process leave them alone until the record is written.
 */
export type HeldRecipients = Set<number>

/**
 * One recipient of a broadcast (its claimed row `recipientId`): the same rules,
 * template quota, upstream call and record as a template send of POST /messages
 * (the message stored with source `broadcast`; its message.sent event says `api`,
 * the events' vocabulary for a send through the API),
 * with the recipient's outcome written in the record's statement, so that a
 * recorded send is never sent again. Refusals and upstream failures are the
 * recipient's `failed` state rather than errors; a throughput refusal (the
 * channel's own throttle, or Meta's 130429 and call rate limits, which accept
 * nothing) releases the claim (`throttled`: a later pass retries it).
 */
export const broadcastRecipientSend = (sql: SqlClient.SqlClient, messages: Messages, held: HeldRecipients) =>
  Effect.fn("BroadcastSender.sendToRecipient")(function*(
    channel: UsableChannel,
    input: SendMessage,
    recipientId: number
  ) {
    const prepared = yield* messages.prepare(channel, input).pipe(Effect.either)
    if (prepared._tag === "Left") {
      const e = prepared.left
      return yield* recipientRefused(
        sql,
        recipientId,
        e._tag === "ChatOnly"
          ? { error: "chat_only", message: e.message }
          : { error: "validation_failed", message: e.detail.map((i) => `${i.loc.slice(1).join(".")}: ${i.msg}`).join("; ") }
      )
    }
    const owner = { source: "broadcast", outcome: recipientOutcome(sql, recipientId) } as const
    const outcome = yield* messages.deliver(channel, prepared.right, owner, refusedForThroughput, untimed).pipe(Effect.either)
    if (outcome._tag === "Left") {
      return yield* recipientRefused(sql, recipientId, { error: "template_quota_exceeded", message: outcome.left.detail })
    }
    if (outcome.right._tag !== "Unsent") {
      const recorded = outcome.right.recorded
      if (recorded._tag === "Held") {
        held.add(recipientId)
        yield* Effect.forkDaemon(Effect.ensuring(recorded.written, Effect.sync(() => held.delete(recipientId))))
      }
      return outcome.right._tag === "Sent" ? "sent" as const : "failed" as const
    }
    const e = outcome.right.error
    if (e._tag === "UpstreamRequestInvalid") return yield* recipientRefused(sql, recipientId, { error: e.code, message: e.message })
    // Refused for throughput (ours or Meta's, which accepted nothing): the recipient waits for a later pass.
    yield* sql`update broadcast_recipients set claimed_until = null where id = ${recipientId}`.pipe(Effect.orDie)
    return "throttled" as const
  })
