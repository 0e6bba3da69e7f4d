import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** What DELETE /contacts/{id} appends to the contact's conversations' peer_id (kept until the wipe deletes them). */
export const deletedSuffix = (contactId: number) => `#deleted-contact-${contactId}`

/**
 * The stages of a contact's wipe (migration 0020's check), in order: the recipients
 * walk (contact-send-redaction.ts), the messages' deletion, then the redaction of
 * events, buffered envelopes and deliveries (contact-redaction.ts).
 */
export type WipeStage = "recipients" | "messages" | "events" | "buffer" | "deliveries"

/** Where a contact's wipe is: its stage and the id range it walks. */
export interface WipeProgress<S extends WipeStage = WipeStage> {
  readonly stage: S
  readonly after_id: number
  readonly until_id: number
}

/** The saved position of a contact's wipe (none before its first step), read and written in contact_wipe_progress. */
export const wipeProgress = (sql: SqlClient.SqlClient, contactId: number) => ({
  read: sql<WipeProgress>`select stage, after_id, until_id from contact_wipe_progress where contact_id = ${contactId}`.pipe(
    Effect.map(([row]) =>
      row === undefined
        ? undefined
        : { stage: row.stage, after_id: Number(row.after_id), until_id: Number(row.until_id) } satisfies WipeProgress
    )
  ),
  save: (next: WipeProgress) =>
    sql`insert into contact_wipe_progress (contact_id, stage, after_id, until_id)
      values (${contactId}, ${next.stage}, ${next.after_id}, ${next.until_id})
      on conflict (contact_id) do update set stage = excluded.stage, after_id = excluded.after_id, until_id = excluded.until_id`
})
