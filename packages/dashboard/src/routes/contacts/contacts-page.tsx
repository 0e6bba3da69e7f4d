import { get } from "../../api/client"
import type { Contact, ContactList } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { FilterForm, type FilterSpec, queryOf } from "../messages/filter-form"

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
export const ContactsPage = ({ location }: { location: Location }) => {
  const q = location.query
  const list = useResource(() => get<ContactList>("/platform/dashboard/contacts", queryOf(location, CONTACT_FILTERS)), q.toString())
  const page = list.data
  return (
    <>
      <h1>Contacts</h1>
      <FilterForm location={location} label="Filter contacts" filters={CONTACT_FILTERS} error={list.error} />
      <div className="toolbar"><button type="button" onClick={list.reload}>Refresh</button></div>
      <ErrorBox error={list.error} />
      {list.loading && page === undefined ? <Loading what="contacts" /> : null}
      {page?.data.length === 0 ? <Empty>No contacts match. A contact is added when someone writes to a channel or is written to.</Empty> : null}
      {page !== undefined && page.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Contacts</caption>
            <thead><tr><th>Id</th><th>Name</th><th>Phone or username</th><th>Channel</th><th>First seen</th><th>Last seen</th><th>History</th></tr></thead>
            <tbody>
              {page.data.map((c) => {
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
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {page ? <Pager location={location} nextCursor={page.next_cursor} hasMore={page.has_more} rows={page.data} /> : null}
    </>
  )
}
