import { type FormEvent, useState } from "react"
import { post } from "../../api/client"
import type { EventDelivery, WebhookSubscription } from "../../api/types"
import { EVENT_TYPES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { SelectField } from "../../components/field"
import { Link } from "../../router"
import { useSubmit } from "../../use-submit"
import { StatusBadge } from "../deliveries/deliveries-page"

/** Sends a signed sample event (`data._test: true`) and shows the delivery the test route answers. */
export const TestEventForm = ({ subscription }: { subscription: WebhookSubscription }) => {
  const { busy, error, run } = useSubmit()
  const [sent, setSent] = useState<EventDelivery>()
  const types = subscription.event_types.length > 0 ? subscription.event_types : EVENT_TYPES
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const eventType = String(new FormData(event.currentTarget).get("event_type"))
    await run(async () => setSent(await post<EventDelivery>(`/platform/v1/webhooks/subscriptions/${subscription.id}/test`, undefined, { event_type: eventType })))
  }
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="test-event">
      <h2 id="test-event">Send a test event</h2>
      <SelectField label="Test event type" name="event_type" defaultValue={types[0]}>
        {types.map((type) => <option key={type} value={type}>{type}</option>)}
      </SelectField>
      <ErrorBox error={error} />
      <button type="submit" disabled={busy}>Send test event</button>
      {sent !== undefined ? (
        <p role="status" data-testid="test-result">
          Queued as <Link to={`/webhooks/deliveries/${sent.id}`}>delivery {sent.id}</Link> (<code>{sent.event_type}</code>) <StatusBadge status={sent.status} />.{" "}
          <Link to={`/webhooks/deliveries?subscription_id=${subscription.id}`}>See it in the deliveries log</Link>.
        </p>
      ) : null}
    </form>
  )
}
