import type { FormEvent } from "react"
import type { DashboardChannel } from "../../api/types"
import { TEMPLATE_FILTERS } from "../../api/templates"
import { Field, SelectField } from "../../components/field"
import { type Location, navigate, queryWith } from "../../router"
import { channelLabel } from "../template-builder/chat-channels"

/** GET /templates's filters, kept in the query string (a filtered list can be bookmarked). */
export const TemplateFilters = ({ location, channels }: { location: Location; channels: ReadonlyArray<DashboardChannel> | undefined }) => {
  const q = location.query
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const changes: Record<string, string | undefined> = { before: undefined }
    for (const name of TEMPLATE_FILTERS) changes[name] = String(form.get(name) ?? "").trim()
    navigate(`${location.path}${queryWith(q, changes)}`)
  }
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter templates" key={q.toString()}>
      <SelectField label="Channel" name="channel_id" defaultValue={q.get("channel_id") ?? ""}>
        <option value="">any</option>
        {channels?.map((c) => <option key={c.channel_id} value={c.channel_id}>{channelLabel(c)}</option>)}
      </SelectField>
      <SelectField label="Status" name="status" defaultValue={q.get("status") ?? ""}>
        <option value="">any</option>
        {["pending", "approved", "rejected"].map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <SelectField label="Category" name="category" defaultValue={q.get("category") ?? ""}>
        <option value="">any</option>
        {["utility", "marketing", "authentication"].map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <Field label="Name" name="name" defaultValue={q.get("name") ?? ""} hint="The exact name." />
      <Field label="Language" name="language_code" defaultValue={q.get("language_code") ?? ""} placeholder="en_US" />
      <button type="submit">Apply filters</button>
    </form>
  )
}
