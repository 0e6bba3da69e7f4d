import type { FormEvent } from "react"
import { get, post } from "../../api/client"
import type { DashboardChannel, WebhookSubscriptionCreate, WebhookSubscriptionWithSecret } from "../../api/types"
import { EVENT_TYPES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"

/** A new subscription: the target URL, the event types (none ticked: every type but message.received), a channel or all. */
export const CreateSubscriptionForm = ({ onCreated }: { onCreated: (subscription: WebhookSubscriptionWithSecret) => void }) => {
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const element = event.currentTarget
    const form = new FormData(element)
    const channel = String(form.get("platform_channel_id") ?? "")
    const description = String(form.get("description") ?? "").trim()
    const body: WebhookSubscriptionCreate = {
      target_url: String(form.get("target_url")),
      event_types: form.getAll("event_types") as Array<typeof EVENT_TYPES[number]>,
      ...(channel === "" ? {} : { platform_channel_id: Number(channel) }),
      ...(description === "" ? {} : { description })
    }
    await run(async () => {
      onCreated(await post<WebhookSubscriptionWithSecret>("/platform/v1/webhooks/subscriptions", body))
      element.reset()
    })
  }
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="create-sub">
      <h2 id="create-sub">Create a subscription</h2>
      <Field label="Target URL" name="target_url" type="url" required placeholder="https://example.com/webhooks" hint="HTTPS, on a public address." error={error} />
      <Field label="Description (optional)" name="description" maxLength={200} error={error} />
      <SelectField label="Channel" name="platform_channel_id" defaultValue="">
          <option value="">All channels of the account</option>
          {channels.data?.filter((c) => c.status !== "disconnected").map((c) => (
            <option key={c.channel_id} value={c.channel_id}>{c.channel_id} ({c.type}) {c.name ?? c.display_phone_number ?? c.username ?? ""}</option>
          ))}
      </SelectField>
      <fieldset>
        <legend>Event types (none ticked: every type except message.received)</legend>
        <div className="checks">
          {EVENT_TYPES.map((type) => (
            <label key={type}><input type="checkbox" name="event_types" value={type} /> <code>{type}</code></label>
          ))}
        </div>
      </fieldset>
      <ErrorBox error={error} />
      <button type="submit" className="primary" disabled={busy}>Create subscription</button>
    </form>
  )
}
