/*
 * A broadcast recipient's state as GET /broadcasts/{id}/recipients shows it, computed
 * at read time so the inbound path does no work for broadcasts: a sent recipient is
 * delivered or read as its message's status says (failed when the upstream reported
 * a failure), and responded once the peer wrote in that conversation after the send.
 * A status other than 'sent' stands as it is: the contact wipe writes the state there
 * before it deletes the messages the state is read from (contact-send-redaction.ts).
 * Both expressions read `r` (broadcast_recipients) and `m` (its message, joined on the
 * broadcast's channel and meta_message_id, or nulls).
 */
export const RECIPIENT_STATE_SQL = `case
    when r.status <> 'sent' then r.status
    when m.status = 'failed' then 'failed'
    when exists (
      select 1 from messages i
      where i.conversation_id = m.conversation_id and i.direction = 'inbound' and i.created_at > r.sent_at
    ) then 'responded'
    when m.status = 'read' then 'read'
    when m.status = 'delivered' then 'delivered'
    else 'sent'
  end`

/** The recipient's error message: its own (a send refused), else its message's when that failed. */
export const RECIPIENT_ERROR_SQL = `coalesce(r.error ->> 'message', case when m.status = 'failed' then m.error ->> 'message' end)`
