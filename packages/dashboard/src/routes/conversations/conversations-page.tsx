import { get } from "../../api/client"
import type { ConversationList } from "../../api/types"
import { CONVERSATION_STATUSES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { FilterForm, type FilterSpec, queryOf } from "../messages/filter-form"

/** The filters of GET /platform/v1/conversations. */
export const CONVERSATION_FILTERS: ReadonlyArray<FilterSpec> = [
  { name: "channel_id", label: "Channel id", kind: "number" },
  { name: "status", label: "Status", kind: "select", options: CONVERSATION_STATUSES },
  { name: "peer_id", label: "Peer (phone or user id)" }
]

export const ConversationStatusBadge = ({ status }: { status: string }) =>
  <span className={`badge ${status === "active" ? "on" : ""}`}>{status}</span>

/** Conversations, the most recently opened first, with their filters and the cursor in the URL. */
export const ConversationsPage = ({ location }: { location: Location }) => {
  const q = location.query
  const list = useResource(
    () => get<ConversationList>("/platform/dashboard/conversations", queryOf(location, CONVERSATION_FILTERS)),
    q.toString()
  )
  const page = list.data
  return (
    <>
      <h1>Conversations</h1>
      <FilterForm location={location} label="Filter conversations" filters={CONVERSATION_FILTERS} error={list.error} />
      <div className="toolbar"><button type="button" onClick={list.reload}>Refresh</button></div>
      <ErrorBox error={list.error} />
      {list.loading && page === undefined ? <Loading what="conversations" /> : null}
      {page?.data.length === 0 ? <Empty>No conversations match. A conversation opens when a peer writes first or a message is sent to them.</Empty> : null}
      {page !== undefined && page.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Conversations</caption>
            <thead><tr><th>Id</th><th>Peer</th><th>Status</th><th>Last message</th><th>Messages (in / out)</th><th>Last active</th><th>Opened</th><th>Channel</th></tr></thead>
            <tbody>
              {page.data.map((c) => (
                <tr key={c.id}>
                  <td><Link to={`/conversations/${c.id}`} aria-label={`Conversation ${c.id} with ${c.peer_id}`}>{c.id}</Link></td>
                  <td><code>{c.peer_id}</code></td>
                  <td><ConversationStatusBadge status={c.status} /></td>
                  <td className="message-text">
                    {c.last_message_direction === "inbound" ? "← " : c.last_message_direction === "outbound" ? "→ " : ""}
                    {c.last_message_preview ?? <span className="muted">—</span>}
                  </td>
                  <td>{c.message_count} ({c.inbound_count} / {c.outbound_count})</td>
                  <td><Time iso={c.last_active_at} /></td>
                  <td><Time iso={c.created_at} /></td>
                  <td><Link to={`/channels/${c.platform_channel_id}`}>{c.platform_channel_id}</Link></td>
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
