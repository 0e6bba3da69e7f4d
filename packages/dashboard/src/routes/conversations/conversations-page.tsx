import type { Conversation } from "../../api/types"
import { CONVERSATION_STATUSES } from "../../api/vocabulary"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import type { FilterSpec } from "../messages/filter-form"
import { FilteredList } from "../messages/filtered-list"

/** The filters of GET /platform/v1/conversations. */
export const CONVERSATION_FILTERS: ReadonlyArray<FilterSpec> = [
  { name: "channel_id", label: "Channel id", kind: "number" },
  { name: "status", label: "Status", kind: "select", options: CONVERSATION_STATUSES },
  { name: "peer_id", label: "Peer (phone or user id)" }
]

export const ConversationStatusBadge = ({ status }: { status: string }) =>
  <span className={`badge ${status === "active" ? "on" : ""}`}>{status}</span>

/** Conversations, the most recently opened first, with their filters and the cursor in the URL. */
export const ConversationsPage = ({ location }: { location: Location }) => (
  <FilteredList<Conversation>
    location={location}
    title="Conversations"
    path="/platform/dashboard/conversations"
    filters={CONVERSATION_FILTERS}
    what="conversations"
    empty={<>No conversations match. A conversation opens when a peer writes first or a message is sent to them.</>}
    caption="Conversations"
    head={["Id", "Peer", "Status", "Last message", "Messages (in / out)", "Last active", "Opened", "Channel"]}
    row={(c) => (
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
    )}
  />
)
