import type { FormEvent } from "react"
import { Field, SelectField } from "../../components/field"
import { DELIVERY_STATUSES, EVENT_TYPES } from "../../api/vocabulary"
import { type Location, navigate, queryWith } from "../../router"

/** The filters of SPEC §4.6, kept in the query string: the URL of a filtered log can be bookmarked and shared. */
export const FILTERS = ["mode", "subscription_id", "channel_id", "status", "event_type", "errors_only"] as const

export const DeliveryFilters = ({ location }: { location: Location }) => {
  const q = location.query
  const native = q.get("mode") !== "meta"
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const changes: Record<string, string | undefined> = { after: undefined, before: undefined }
    for (const name of FILTERS) changes[name] = form.get(name) === null ? undefined : String(form.get(name)).trim()
    if (changes.mode === "native") changes.mode = undefined
    navigate(`${location.path}${queryWith(q, changes)}`)
  }
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter deliveries" key={q.toString()}>
      <SelectField label="Mode" name="mode" defaultValue={q.get("mode") ?? "native"}>
        <option value="native">Events (native)</option>
        <option value="meta">Raw forward (meta)</option>
      </SelectField>
      {native ? <Field label="Subscription id" name="subscription_id" inputMode="numeric" defaultValue={q.get("subscription_id") ?? ""} /> : null}
      <Field label="Channel id" name="channel_id" inputMode="numeric" defaultValue={q.get("channel_id") ?? ""} />
      <SelectField label="Status" name="status" defaultValue={q.get("status") ?? ""}>
        <option value="">any</option>
        {DELIVERY_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      {native ? (
        <SelectField label="Event type" name="event_type" defaultValue={q.get("event_type") ?? ""}>
          <option value="">any</option>
          {EVENT_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </SelectField>
      ) : null}
      <label className="check"><input type="checkbox" name="errors_only" value="true" defaultChecked={q.get("errors_only") === "true"} /> Errors only</label>
      <button type="submit">Apply filters</button>
    </form>
  )
}
