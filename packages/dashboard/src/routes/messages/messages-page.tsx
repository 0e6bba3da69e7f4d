import type { Message } from "../../api/types"
import { MESSAGE_STATUSES, MESSAGE_TYPES } from "../../api/vocabulary"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import type { FilterSpec } from "./filter-form"
import { FilteredList } from "./filtered-list"
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
export const MessagesPage = ({ location }: { location: Location }) => (
  <FilteredList<Message>
    location={location}
    title="Messages"
    path="/platform/dashboard/messages"
    filters={MESSAGE_FILTERS}
    what="messages"
    empty={<>No messages match. Messages appear here as they are sent through the API and received on a channel.</>}
    caption="Messages, newest first"
    head={["Id", "Created", "Direction", "Type", "Message", "Status", "Status at", "Channel", "Conversation"]}
    row={(m) => (
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
    )}
  />
)
