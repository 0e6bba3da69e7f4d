import { useState } from "react"
import type { ApiError } from "../../api/api-error"
import { get, post } from "../../api/client"
import type { EventDelivery } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { CodeBlock } from "../../components/scrollable"
import { Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, navigate } from "../../router"
import { useResource } from "../../use-resource"
import { StatusBadge } from "./deliveries-page"

/** One delivery: its attempts, the receiver's response and the envelope as delivered; redeliver. */
export const DeliveryPage = ({ id }: { id: string }) => {
  const delivery = useResource(() => get<EventDelivery>(`/platform/v1/webhooks/deliveries/${id}`, { include: "full_envelope" }), id)
  const [error, setError] = useState<ApiError>()
  const redeliver = async () => {
    try {
      const copy = await post<EventDelivery>(`/platform/v1/webhooks/deliveries/${id}/redeliver`)
      setError(undefined)
      navigate(`/webhooks/deliveries/${copy.id}`)
    } catch (e) {
      setError(e as ApiError)
    }
  }
  const d = delivery.data
  return (
    <>
      <p><Link to="/webhooks/deliveries">« All deliveries</Link></p>
      <h1>Delivery {id}</h1>
      <ErrorBox error={delivery.error ?? error} />
      {delivery.loading && d === undefined ? <Loading what="the delivery" /> : null}
      {d ? (
        <>
          <dl className="facts">
            <dt>Status</dt><dd><StatusBadge status={d.status} /></dd>
            <dt>Event</dt><dd><code>{d.event_type}</code> <code className="muted">{d.event_id}</code></dd>
            <dt>Subscription</dt><dd><Link to={`/webhooks/deliveries?subscription_id=${d.subscription_id}`}>{d.subscription_id}</Link></dd>
            <dt>Attempts</dt><dd>{d.attempts}</dd>
            <dt>Created</dt><dd><Time iso={d.created_at} /></dd>
            <dt>Delivered</dt><dd><Time iso={d.delivered_at} empty="not yet" /></dd>
            <dt>Next retry</dt><dd><Time iso={d.next_retry_at} /></dd>
            <dt>Response status</dt><dd>{d.response_status ?? "—"}{d.latency_ms != null ? ` in ${d.latency_ms} ms` : ""}</dd>
            {d.last_error ? <><dt>Last error</dt><dd>{d.last_error}</dd></> : null}
          </dl>
          <h2>Response body</h2>
          {d.response_body_snippet ? <CodeBlock label="Response body">{d.response_body_snippet}</CodeBlock> : <p className="muted">No response body recorded.</p>}
          <h2>Envelope</h2>
          {d.envelope !== undefined ? <CodeBlock label="Envelope" testId="envelope">{JSON.stringify(d.envelope, null, 2)}</CodeBlock> : <p className="muted">Not available.</p>}
          <div className="toolbar">
            <button type="button" className="primary" onClick={() => void redeliver()} disabled={d.status === "pending" || d.status === "delivering"}>Redeliver</button>
            <button type="button" onClick={delivery.reload}>Refresh</button>
          </div>
        </>
      ) : null}
    </>
  )
}
