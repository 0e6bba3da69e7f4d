import type { FormEvent } from "react"
import { get, patch } from "../../api/client"
import type { DashboardChannel, WebhookSubscription, WebhookSubscriptionPatch } from "../../api/types"
import { EVENT_TYPES } from "../../api/vocabulary"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import { useResource } from "../../use-resource"
import { useSubmit } from "../../use-submit"

/** A blank number field is `null` (the setting off), as the PATCH route reads it. */
const numberOrNull = (value: FormDataEntryValue | null) => (String(value ?? "").trim() === "" ? null : Number(value))

/** `Name: value` lines → the custom headers object (blank text clears them). */
const headersOf = (text: string): Record<string, string> | null => {
  const entries = text.split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line) => {
    const colon = line.indexOf(":")
    return colon < 0 ? [line, ""] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()]
  })
  return entries.length === 0 ? null : Object.fromEntries(entries)
}

const headersText = (headers: Readonly<Record<string, string>> | null) =>
  Object.entries(headers ?? {}).map(([name, value]) => `${name}: ${value}`).join("\n")

/** Everything PATCH /webhooks/subscriptions/{id} takes, pre-filled with the subscription as it is. */
export const EditSubscriptionForm = ({ subscription: s, onSaved }: { subscription: WebhookSubscription; onSaved: (s: WebhookSubscription) => void }) => {
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const channel = String(form.get("platform_channel_id") ?? "")
    const description = String(form.get("description") ?? "").trim()
    const body: WebhookSubscriptionPatch = {
      target_url: String(form.get("target_url")),
      description: description === "" ? null : description,
      event_types: form.getAll("event_types") as Array<typeof EVENT_TYPES[number]>,
      platform_channel_id: channel === "" ? null : Number(channel),
      custom_headers: headersOf(String(form.get("custom_headers") ?? "")),
      buffer_window_seconds: numberOrNull(form.get("buffer_window_seconds")),
      buffer_max_batch: numberOrNull(form.get("buffer_max_batch")),
      inactivity_minutes: numberOrNull(form.get("inactivity_minutes"))
    }
    await run(async () => onSaved(await patch<WebhookSubscription>(`/platform/v1/webhooks/subscriptions/${s.id}`, body)))
  }
  return (
    <form className="card" key={s.updated_at} onSubmit={(e) => void submit(e)} aria-labelledby="edit-sub">
      <h2 id="edit-sub">Edit</h2>
      <Field label="Target URL" name="target_url" type="url" required defaultValue={s.target_url} error={error} />
      <Field label="Description" name="description" maxLength={200} defaultValue={s.description ?? ""} error={error} />
      <SelectField label="Channel" name="platform_channel_id" defaultValue={s.platform_channel_id === null ? "" : String(s.platform_channel_id)}>
        <option value="">All channels of the account</option>
        {channels.data?.filter((c) => c.status !== "disconnected" || c.channel_id === s.platform_channel_id).map((c) => (
          <option key={c.channel_id} value={c.channel_id}>{c.channel_id} ({c.type}) {c.name ?? c.display_phone_number ?? c.username ?? ""}</option>
        ))}
      </SelectField>
      <fieldset>
        <legend>Event types (none ticked: every type except message.received)</legend>
        <div className="checks">
          {EVENT_TYPES.map((type) => (
            <label key={type}><input type="checkbox" name="event_types" value={type} defaultChecked={s.event_types.includes(type)} /> <code>{type}</code></label>
          ))}
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor="custom-headers">Custom headers (one <code>Name: value</code> a line)</label>
        <textarea id="custom-headers" name="custom_headers" rows={3} defaultValue={headersText(s.custom_headers)}
          aria-invalid={error?.field?.startsWith("custom_headers") || undefined} />
      </div>
      <Field label="Buffer window (seconds, 1 to 60; blank: deliver at once)" name="buffer_window_seconds" type="number" min={1} max={60}
        defaultValue={s.buffer_window_seconds ?? ""} error={error} />
      <Field label="Buffer batch size (1 to 100)" name="buffer_max_batch" type="number" min={1} max={100} defaultValue={s.buffer_max_batch ?? ""} error={error} />
      <Field label="Inactivity (minutes, 1 to 1440; blank: no conversation.inactive)" name="inactivity_minutes" type="number" min={1} max={1440}
        defaultValue={s.inactivity_minutes ?? ""} error={error} />
      <ErrorBox error={error} />
      <button type="submit" className="primary" disabled={busy}>Save changes</button>
    </form>
  )
}
