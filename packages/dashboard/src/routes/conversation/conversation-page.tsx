import { get } from "../../api/client"
import type { Contact, Conversation, MessageList } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { contactName } from "../contacts/contacts-page"
import { ConversationStatusBadge } from "../conversations/conversations-page"
import { Direction, errorOf, MessageStatus, previewOf } from "../messages/message-parts"

const ContactFacts = ({ id }: { id: number }) => {
  const contact = useResource(() => get<Contact>(`/platform/dashboard/contacts/${id}`), String(id))
  if (contact.error !== undefined) return <ErrorBox error={contact.error} />
  if (contact.data === undefined) return <span className="muted">Loading…</span>
  return <Link to={`/contacts?channel_id=${contact.data.platform_channel_id}&q=${encodeURIComponent(contact.data.phone ?? contact.data.username ?? "")}`}>{contactName(contact.data)}</Link>
}

/**
 * A conversation and its thread: the messages in the order they were written (oldest at
 * the top of the page), each with its direction, type, status and times. The newest
 * messages come first; "Older »" pages back, with the cursor in the URL.
 */
export const ConversationPage = ({ id, location }: { id: string; location: Location }) => {
  const conversation = useResource(() => get<Conversation>(`/platform/dashboard/conversations/${id}`), id)
  const cursor = { after: location.query.get("after") ?? undefined, before: location.query.get("before") ?? undefined }
  const thread = useResource(
    () => get<MessageList>("/platform/dashboard/messages", { conversation_id: id, ...cursor }),
    `${id}?${location.query.toString()}`
  )
  const c = conversation.data
  const page = thread.data
  return (
    <>
      <p><Link to="/conversations">« All conversations</Link></p>
      <h1>Conversation {id}</h1>
      <ErrorBox error={conversation.error} />
      {conversation.loading && c === undefined ? <Loading what="the conversation" /> : null}
      {c !== undefined ? (
        <dl className="facts">
          <dt>Peer</dt><dd><code>{c.peer_id}</code></dd>
          <dt>Contact</dt><dd>{c.platform_contact_id !== null && c.platform_contact_id !== undefined ? <ContactFacts id={c.platform_contact_id} /> : "—"}</dd>
          <dt>Status</dt><dd><ConversationStatusBadge status={c.status} />{c.ended_at ? <> since <Time iso={c.ended_at} /></> : null}</dd>
          <dt>Channel</dt><dd><Link to={`/channels/${c.platform_channel_id}`}>{c.platform_channel_id}</Link></dd>
          <dt>Messages</dt><dd>{c.message_count} ({c.inbound_count} in, {c.outbound_count} out) · <Link to={`/messages?conversation_id=${c.id}`}>filter in Messages</Link></dd>
          <dt>Opened</dt><dd><Time iso={c.created_at} /></dd>
          <dt>Last active</dt><dd><Time iso={c.last_active_at} /></dd>
        </dl>
      ) : null}
      {conversation.error === undefined ? (
        <section aria-labelledby="thread-heading">
          <h2 id="thread-heading">Thread</h2>
          <div className="toolbar"><button type="button" onClick={thread.reload}>Refresh</button></div>
          <ErrorBox error={thread.error} />
          {thread.loading && page === undefined ? <Loading what="the thread" /> : null}
          {page?.data.length === 0 ? <Empty>No messages in this conversation.</Empty> : null}
          {page !== undefined && page.data.length > 0 ? (
            <ol className="thread" aria-label="Messages, oldest first">
              {[...page.data].reverse().map((m) => (
                <li key={m.id} className={`bubble ${m.direction}`}>
                  <div className="bubble-meta">
                    <Direction direction={m.direction} /> <code>{m.type}</code> <MessageStatus status={m.status} />
                  </div>
                  <p className="message-text">{previewOf(m)}</p>
                  {errorOf(m) !== undefined ? <p className="field-error">{errorOf(m)}</p> : null}
                  <div className="bubble-meta muted">
                    <Time iso={m.created_at} />
                    {m.status_updated_at !== null ? <> · {m.status} <Time iso={m.status_updated_at} /></> : null}
                  </div>
                </li>
              ))}
            </ol>
          ) : null}
          {page ? <Pager location={location} nextCursor={page.next_cursor} hasMore={page.has_more} /> : null}
        </section>
      ) : null}
    </>
  )
}
