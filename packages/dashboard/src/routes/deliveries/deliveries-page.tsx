import { get } from "../../api/client"
import type { DeliveryList } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { TableRegion } from "../../components/scrollable"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { DeliveryFilters, FILTERS } from "./delivery-filters"

export const StatusBadge = ({ status }: { status: string }) =>
  <span className={`badge ${status === "delivered" ? "on" : status === "failed" ? "off" : "wait"}`}>{status}</span>

/** The deliveries log: the filters of SPEC §4.6 and the cursor in the URL, newest first. */
export const DeliveriesPage = ({ location }: { location: Location }) => {
  const q = location.query
  const query = Object.fromEntries([...FILTERS, "after", "before", "limit"].map((k) => [k, q.get(k) ?? undefined]))
  const list = useResource(() => get<DeliveryList>("/platform/v1/webhooks/deliveries", query), q.toString())
  const page = list.data
  return (
    <>
      <h1>Deliveries</h1>
      <DeliveryFilters location={location} />
      <div className="toolbar"><button type="button" onClick={list.reload}>Refresh</button></div>
      <ErrorBox error={list.error} />
      {list.loading && page === undefined ? <Loading what="deliveries" /> : null}
      {page?.data.length === 0 ? <Empty>No deliveries match. Events are delivered to subscriptions as they happen.</Empty> : null}
      {page !== undefined && page.mode === "native" && page.data.length > 0 ? (
        <TableRegion label="Event deliveries">
          <table>
            <caption className="sr-only">Event deliveries</caption>
            <thead><tr><th>Id</th><th>Event</th><th>Subscription</th><th>Status</th><th>Attempts</th><th>Response</th><th>Created</th><th>Next retry</th></tr></thead>
            <tbody>
              {page.data.map((d) => (
                <tr key={d.id}>
                  <td><Link to={`/webhooks/deliveries/${d.id}`} aria-label={`Delivery ${d.id}`}>{d.id}</Link></td>
                  <td><code>{d.event_type}</code></td>
                  <td>{d.subscription_id}</td>
                  <td><StatusBadge status={d.status} /></td>
                  <td>{d.attempts}</td>
                  <td>{d.response_status ?? "—"}</td>
                  <td><Time iso={d.created_at} /></td>
                  <td><Time iso={d.next_retry_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      {page !== undefined && page.mode === "meta" && page.data.length > 0 ? (
        <TableRegion label="Raw-forward deliveries">
          <table>
            <caption className="sr-only">Raw-forward deliveries</caption>
            <thead><tr><th>Id</th><th>Channel</th><th>Status</th><th>Attempts</th><th>Response</th><th>Error</th><th>Created</th></tr></thead>
            <tbody>
              {page.data.map((d) => (
                <tr key={d.id}>
                  <td>{d.id}</td>
                  <td>{d.platform_channel_id}</td>
                  <td><StatusBadge status={d.status} /></td>
                  <td>{d.attempts}</td>
                  <td>{d.response_status ?? "—"}</td>
                  <td>{d.last_error ?? "—"}</td>
                  <td><Time iso={d.created_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      {page ? <Pager location={location} nextCursor={page.next_cursor} hasMore={page.has_more} rows={page.data} /> : null}
    </>
  )
}
