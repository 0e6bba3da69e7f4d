import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { redactContactStep } from "./contact-redaction.js"
import { redactRecipientsStep, redactRepliesStep } from "./contact-send-redaction.js"

/**
 * Rows per transaction, messages deleted or events and deliveries read for redaction: a
 * long history is wiped in many short transactions, none holding locks for long.
 */
export const WIPE_BATCH = 500

export interface WipeResult {
  readonly contacts: number
  readonly messages: number
}

/**
 * The asynchronous cascade of DELETE /contacts/{id}. The request only marks the
 * contact (deleted_at); this removes what the mark hides, one bounded batch per
 * transaction: first up to WIPE_BATCH of the account's broadcasts searched for the
 * person's recipients, redacted with their state kept (contact-send-redaction.ts);
 * when none are left, up to WIPE_BATCH of its messages (its own and those of its
 * conversations), and the stored Idempotency-Key replies of those sent by POST
 * /messages redacted with them (contact-send-redaction.ts); when none are left, up to WIPE_BATCH rows of the redaction of
 * its events and of the deliveries that carry their own envelope (contact-redaction.ts);
 * when that is done, its conversations and the contact row.
 * A crash between batches loses nothing: the mark stays, the next run goes on.
 * The contact is claimed FOR UPDATE SKIP LOCKED, so several workers wipe different
 * contacts. The DELETE moved the contact's peer keys aside, so an inbound or send
 * to that person meanwhile starts a new contact and conversation and is never part
 * of this one. Events keep no foreign key to messages or conversations: they stay,
 * redacted, and so do their deliveries, whose pending ones then send the redacted
 * envelope; the inactivity notices' bookkeeping rows go with their conversation.
 */
export class ContactWipe extends Effect.Service<ContactWipe>()("@platform/server/ContactWipe", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const batch = (size: number) =>
      sql.withTransaction(Effect.gen(function*() {
        const [contact] = yield* sql<{ id: number; developer_account_id: number }>`select id, developer_account_id
          from contacts where deleted_at is not null order by id limit 1 for update skip locked`
        if (contact === undefined) return undefined
        if (!(yield* redactRecipientsStep(sql, { id: contact.id, accountId: contact.developer_account_id }, size))) {
          return { messages: 0, finished: false }
        }
        const [gone] = yield* sql<{ n: number; sent: string }>`with gone as (
            delete from messages where id in (
              select id from messages where contact_id = ${contact.id}
              union
              select m.id from messages m join conversations c on c.id = m.conversation_id where c.platform_contact_id = ${contact.id}
              limit ${size})
            returning direction, source, meta_message_id, created_at)
          select count(*)::int as n, coalesce(json_agg(json_build_object('meta_message_id', meta_message_id, 'created_at', created_at))
              filter (where direction = 'outbound' and source = 'api' and meta_message_id is not null), '[]')::text as sent
          from gone`
        yield* redactRepliesStep(sql, contact.developer_account_id, JSON.parse(gone?.sent ?? "[]"))
        const n = gone?.n ?? 0
        if (n >= size) return { messages: n, finished: false }
        const redacted = yield* redactContactStep(sql, { id: contact.id, accountId: contact.developer_account_id }, size)
        if (!redacted) return { messages: n, finished: false }
        yield* sql`delete from conversations where platform_contact_id = ${contact.id}`
        yield* sql`delete from contacts where id = ${contact.id}`
        return { messages: n, finished: true }
      }))

    /** Runs batches until no contact marked deleted is left (or every one left is being wiped elsewhere). */
    const runOnce = Effect.fn("ContactWipe.runOnce")(function*(size: number = WIPE_BATCH) {
      let contacts = 0
      let messages = 0
      while (true) {
        const step = yield* batch(size)
        if (step === undefined) return { contacts, messages } satisfies WipeResult
        messages += step.messages
        if (step.finished) contacts++
      }
    }, Effect.orDie)

    /** One bounded batch (undefined when nothing is left to wipe); what runOnce repeats. */
    const step = (size: number = WIPE_BATCH) => batch(size).pipe(Effect.orDie)

    return { runOnce, step } as const
  })
}) {}
