import { useState } from "react"
import { get } from "../../api/client"
import type { Page, WebhookSubscription, WebhookSubscriptionWithSecret } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { TableRegion } from "../../components/scrollable"
import { SecretOnce } from "../../components/secret-once"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { CreateSubscriptionForm } from "./create-subscription-form"

export const stateOf = (s: WebhookSubscription) =>
  !s.is_active ? <span className="badge off">inactive</span>
    : s.is_paused ? <span className="badge off" title={s.paused_reason ?? undefined}>paused</span>
    : <span className="badge on">active</span>

/** Webhook subscriptions: the list (cursor pages in the URL) and the creation form; the secret shown once. */
export const SubscriptionsPage = ({ location }: { location: Location }) => {
  const after = location.query.get("after") ?? undefined
  const before = location.query.get("before") ?? undefined
  const limit = location.query.get("limit") ?? undefined
  const subs = useResource(
    () => get<Page<WebhookSubscription>>("/platform/v1/webhooks/subscriptions", { after, before, limit }),
    `${after}|${before}|${limit}`
  )
  const [created, setCreated] = useState<WebhookSubscriptionWithSecret>()
  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">Subscriptions receive the account's events, signed with their secret. <Link to="/webhooks/deliveries">See every delivery</Link>.</p>
      {created !== undefined ? <SecretOnce title={`Subscription ${created.id} created`} secret={created.secret} onDone={() => setCreated(undefined)} /> : null}
      <ErrorBox error={subs.error} />
      {subs.loading && subs.data === undefined ? <Loading what="subscriptions" /> : null}
      {subs.data?.data.length === 0 ? <Empty>No subscriptions{after || before ? " on this page" : " yet. Create one below"}.</Empty> : null}
      {subs.data !== undefined && subs.data.data.length > 0 ? (
        <TableRegion label="Subscriptions">
          <table>
            <caption className="sr-only">Subscriptions</caption>
            <thead><tr><th>Id</th><th>Target URL</th><th>Events</th><th>Channel</th><th>State</th><th>Failures</th><th>Last delivery</th><th>Created</th><th><span className="sr-only">Deliveries</span></th></tr></thead>
            <tbody>
              {subs.data.data.map((s) => (
                <tr key={s.id}>
                  <td><Link to={`/webhooks/${s.id}`} aria-label={`Subscription ${s.id}`}>{s.id}</Link></td>
                  <td className="url">{s.target_url}{s.description ? <div className="muted">{s.description}</div> : null}</td>
                  <td>{s.event_types.length === 0 ? "all (catch-all)" : s.event_types.join(", ")}</td>
                  <td>{s.platform_channel_id ?? "all"}</td>
                  <td>{stateOf(s)}</td>
                  <td>{s.failure_count}</td>
                  <td><Time iso={s.last_delivery_at} empty="never" /></td>
                  <td><Time iso={s.created_at} /></td>
                  <td><Link to={`/webhooks/deliveries?subscription_id=${s.id}`} aria-label={`Deliveries of subscription ${s.id}`}>Deliveries</Link></td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : null}
      {subs.data ? <Pager location={location} nextCursor={subs.data.next_cursor} hasMore={subs.data.has_more} rows={subs.data.data} /> : null}
      <CreateSubscriptionForm onCreated={(s) => { setCreated(s); subs.reload() }} />
    </>
  )
}
