import type { Contact } from "../../api/types"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import type { FilterSpec } from "../messages/filter-form"
import { FilteredList } from "../messages/filtered-list"

/** The filters of GET /platform/v1/contacts. */
export const CONTACT_FILTERS: ReadonlyArray<FilterSpec> = [
  { name: "q", label: "Name, username or phone starts with" },
  { name: "channel_id", label: "Channel id", kind: "number" }
]

export const contactName = (c: Pick<Contact, "display_name" | "profile_name" | "username" | "phone" | "id">) =>
  c.display_name ?? c.profile_name ?? c.username ?? c.phone ?? `Contact ${c.id}`

/** The peer id of a contact's conversation: the phone-number id on chat channels, the social id on social ones. */
const peerOf = (c: Contact) => c.chat_id ?? c.social_id ?? c.business_scoped_user_id ?? null

/** Contacts, newest first, with the name or phone search, the channel filter and the cursor in the URL. */
export const ContactsPage = ({ location }: { location: Location }) => (
  <FilteredList<Contact>
    location={location}
    title="Contacts"
    path="/platform/dashboard/contacts"
    filters={CONTACT_FILTERS}
    what="contacts"
    empty={<>No contacts match. A contact is added when someone writes to a channel or is written to.</>}
    caption="Contacts"
    head={["Id", "Name", "Phone or username", "Channel", "First seen", "Last seen", "History"]}
    row={(c) => {
      const peer = peerOf(c)
      return (
        <tr key={c.id}>
          <td>{c.id}</td>
          <td>{contactName(c)}{c.profile_name && c.display_name && c.profile_name !== c.display_name ? <small className="muted"> ({c.profile_name})</small> : null}</td>
          <td><code>{c.phone ?? c.username ?? peer ?? "—"}</code></td>
          <td><Link to={`/channels/${c.platform_channel_id}`}>{c.platform_channel_id}</Link></td>
          <td><Time iso={c.first_seen_at} /></td>
          <td><Time iso={c.last_seen_at} /></td>
          <td className="links">
            <Link to={`/messages?contact_id=${c.id}`} aria-label={`Messages of ${contactName(c)}`}>Messages</Link>
            {peer !== null
              ? <> · <Link to={`/conversations?channel_id=${c.platform_channel_id}&peer_id=${encodeURIComponent(peer)}`} aria-label={`Conversations of ${contactName(c)}`}>Conversations</Link></>
              : null}
          </td>
        </tr>
      )
    }}
  />
)
