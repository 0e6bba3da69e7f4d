import { get } from "../../api/client"
import type { MessageList } from "../../api/types"
import { MESSAGE_STATUSES, MESSAGE_TYPES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { FilterForm, type FilterSpec, queryOf } from "./filter-form"
import { Direction, errorOf, MessageStatus, previewOf } from "./message-parts"

/** The filters of GET /platform/v1/messages, which the dashboard route takes too. */
export const MESSAGE_FILTERS: ReadonlyArray<FilterSpec> = [
  { name: "channel_id", label: "Channel id", kind: "number" },
  { name: "conversation_id", label: "Conversation id", kind: "number" },
  { name: "contact_id", label: "Contact id", kind: "number" },
  { name: "peer_id", label: "Peer (phone or user id)" },
  { name: "direction", label: "Direction", kind: "select", options: ["inbound", "outbound"] },
  { name: "type", label: "Type", kind: "select", options: MESSAGE_TYPES },
  { name: "status", label: "Status", kind: "select", options: MESSAGE_STATUSES },
  { name: "since", label: "Since", kind: "datetime" },
  { name: "until", label: "Until", kind: "datetime" }
]

/** The stored messages, newest first, with the history's filters and the cursor in the URL. */
export const MessagesPage = ({ location }: { location: Location }) => {
  const q = location.query
  const list = useResource(() => get<MessageList>("/platform/dashboard/messages", queryOf(location, MESSAGE_FILTERS)), q.toString())
  const page = list.data
  return (
    <>
      <h1>Messages</h1>
      <FilterForm location={location} label="Filter messages" filters={MESSAGE_FILTERS} error={list.error} />
      <div className="toolbar"><button type="button" onClick={list.reload}>Refresh</button></div>
      <ErrorBox error={list.error} />
      {list.loading && page === undefined ? <Loading what="messages" /> : null}
      {page?.data.length === 0 ? <Empty>No messages match. Messages appear here as they are sent through the API and received on a channel.</Empty> : null}
      {page !== undefined && page.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Messages, newest first</caption>
            <thead><tr><th>Id</th><th>Created</th><th>Direction</th><th>Type</th><th>Message</th><th>Status</th><th>Status at</th><th>Channel</th><th>Conversation</th></tr></thead>
            <tbody>
              {page.data.map((m) => (
                <tr key={m.id}>
                  <td>{m.id}</td>
                  <td><Time iso={m.created_at} /></td>
                  <td><Direction direction={m.direction} /></td>
                  <td><code>{m.type}</code></td>
                  <td className="message-text">{previewOf(m)}{errorOf(m) !== undefined ? <small className="field-error"> {errorOf(m)}</small> : null}</td>
                  <td><MessageStatus status={m.status} /></td>
                  <td><Time iso={m.status_updated_at} /></td>
                  <td><Link to={`/channels/${m.platform_channel_id}`}>{m.platform_channel_id}</Link></td>
                  <td>{m.conversation_id !== null ? <Link to={`/conversations/${m.conversation_id}`} aria-label={`Conversation ${m.conversation_id}`}>{m.conversation_id}</Link> : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {page ? <Pager location={location} nextCursor={page.next_cursor} hasMore={page.has_more} rows={page.data} /> : null}
    </>
  )
}
