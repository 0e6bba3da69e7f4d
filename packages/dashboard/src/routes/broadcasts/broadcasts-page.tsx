import { listBroadcasts } from "../../api/broadcasts"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { BroadcastFilters, FILTERS } from "./broadcast-filters"
import { BroadcastStatusBadge } from "./broadcast-status"

/** Broadcasts, newest first: the filters and the cursor in the URL; a link to a new draft. */
export const BroadcastsPage = ({ location }: { location: Location }) => {
  const q = location.query
  const query = Object.fromEntries([...FILTERS, "after", "before"].map((k) => [k, q.get(k) ?? undefined]))
  const list = useResource(() => listBroadcasts(query), q.toString())
  const page = list.data
  const filtered = FILTERS.some((f) => q.has(f)) || q.has("after") || q.has("before")
  return (
    <>
      <h1>Broadcasts</h1>
      <p className="muted">Template campaigns on WhatsApp channels: a draft, its recipients, then a schedule or an immediate send.</p>
      <div className="toolbar">
        <Link to="/broadcasts/new" className="button primary">New broadcast</Link>
        <button type="button" onClick={list.reload}>Refresh</button>
      </div>
      <BroadcastFilters location={location} />
      <ErrorBox error={list.error} />
      {list.loading && page === undefined ? <Loading what="broadcasts" /> : null}
      {page?.data.length === 0 ? <Empty>{filtered ? "No broadcasts match." : "No broadcasts yet. Create a draft to start one."}</Empty> : null}
      {page !== undefined && page.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Broadcasts</caption>
            <thead><tr><th>Name</th><th>Channel</th><th>Template</th><th>State</th><th>Recipients</th><th>Scheduled</th><th>Created</th></tr></thead>
            <tbody>
              {page.data.map((b) => (
                <tr key={b.id}>
                  <td><Link to={`/broadcasts/${b.id}`}>{b.name}</Link> <span className="muted">#{b.id}</span></td>
                  <td>{b.platform_channel_id}</td>
                  <td><code>{b.template_name}</code> <span className="muted">({b.language_code})</span></td>
                  <td><BroadcastStatusBadge status={b.status} /></td>
                  <td>{b.recipient_count}</td>
                  <td><Time iso={b.scheduled_at} /></td>
                  <td><Time iso={b.created_at} /></td>
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
