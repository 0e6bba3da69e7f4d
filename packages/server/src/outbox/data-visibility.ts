/*
 * A contact marked deleted (DELETE /contacts/{id}) disappears from every read at
 * once, with its messages and conversations, while the contact wipe removes the rows
 * in the background. These conditions hide them; each is an anti-join against the
 * small partial index of deleted contacts (migration 0015).
 */

/** SQL condition: the message aliased `m` does not belong to a deleted contact. */
export const MESSAGE_VISIBLE = `not exists (select 1 from contacts dk where dk.id = m.contact_id and dk.deleted_at is not null)`

/** SQL condition: the conversation aliased `c` does not belong to a deleted contact. */
export const CONVERSATION_VISIBLE =
  `not exists (select 1 from contacts dk where dk.id = c.platform_contact_id and dk.deleted_at is not null)`
