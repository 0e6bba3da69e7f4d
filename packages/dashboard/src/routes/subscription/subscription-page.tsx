import { useState } from "react"
import { del, get, patch, post } from "../../api/client"
import type { WebhookSubscription, WebhookSubscriptionWithSecret } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { SecretOnce } from "../../components/secret-once"
import { Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, navigate } from "../../router"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"
import { stateOf } from "../webhooks/subscriptions-page"
import { EditSubscriptionForm } from "./edit-subscription-form"
import { TestEventForm } from "./test-event-form"

/** One subscription: its state, edit, pause and resume, rotate the secret (shown once), a test event, delete. */
export const SubscriptionPage = ({ id }: { id: string }) => {
  const path = `/platform/v1/webhooks/subscriptions/${id}`
  const sub = useResource(() => get<WebhookSubscription>(path), id)
  const [rotated, setRotated] = useState<WebhookSubscriptionWithSecret>()
  const action = useSubmit()
  const act = (request: () => Promise<unknown>) => action.run(async () => {
    await request()
    sub.reload()
  })
  const s = sub.data
  // Paused by hand (is_active false) or by the server (is_paused): resume clears both.
  const resume = () => act(async () => {
    if (!s!.is_active) await patch(path, { is_active: true })
    if (s!.is_paused || !s!.is_active) await post(`${path}/resume`)
  })
  const remove = () => action.run(async () => {
    await del(path)
    navigate("/webhooks")
  })
  return (
    <>
      <p><Link to="/webhooks">« All subscriptions</Link></p>
      <h1>Subscription {id}</h1>
      <ErrorBox error={sub.error ?? action.error} />
      {sub.loading && s === undefined ? <Loading what="the subscription" /> : null}
      {rotated !== undefined ? <SecretOnce title="New signing secret" secret={rotated.secret} onDone={() => setRotated(undefined)} /> : null}
      {s !== undefined ? (
        <>
          <dl className="facts">
            <dt>State</dt><dd data-testid="sub-state">{stateOf(s)}{s.paused_reason ? <span className="muted"> {s.paused_reason}</span> : null}</dd>
            <dt>Target URL</dt><dd>{s.target_url}</dd>
            <dt>Description</dt><dd>{s.description ?? "—"}</dd>
            <dt>Events</dt><dd>{s.event_types.length === 0 ? "all (catch-all)" : s.event_types.join(", ")}</dd>
            <dt>Channel</dt><dd>{s.platform_channel_id ?? "all"}</dd>
            <dt>Failures</dt><dd>{s.failure_count}</dd>
            <dt>Last delivery</dt><dd><Time iso={s.last_delivery_at} empty="never" /></dd>
            <dt>Updated</dt><dd><Time iso={s.updated_at} /></dd>
          </dl>
          <div className="toolbar">
            {s.is_active && !s.is_paused
              ? <button type="button" disabled={action.busy} onClick={() => void act(() => patch(path, { is_active: false }))}>Pause</button>
              : <button type="button" className="primary" disabled={action.busy} onClick={() => void resume()}>Resume</button>}
            <ConfirmButton label="Rotate secret" className="" title="Rotate the signing secret?" confirmLabel="Rotate"
              action={() => action.run(async () => setRotated(await post<WebhookSubscriptionWithSecret>(`${path}/rotate-secret`)))}>
              A new secret signs every delivery from now on; the previous one keeps signing alongside it for 24 hours.
            </ConfirmButton>
            <Link to={`/webhooks/deliveries?subscription_id=${s.id}`}>Deliveries</Link>
          </div>
          <TestEventForm subscription={s} />
          <EditSubscriptionForm subscription={s} onSaved={() => sub.reload()} />
          <ConfirmButton label="Delete subscription" title={`Delete subscription ${s.id}?`} confirmLabel="Delete" action={remove}>
            Its events stop being delivered to {s.target_url}. This cannot be undone.
          </ConfirmButton>
        </>
      ) : null}
    </>
  )
}
