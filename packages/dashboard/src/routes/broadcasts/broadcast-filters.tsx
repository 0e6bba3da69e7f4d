import type { FormEvent } from "react"
import { get } from "../../api/client"
import type { DashboardChannel } from "../../api/types"
import { BROADCAST_STATUSES } from "../../api/vocabulary"
import { SelectField } from "../../components/field"
import { type Location, navigate, queryWith } from "../../router"
import { useResource } from "../../use-resource"

/** The list's filters (GET /broadcasts: `channel_id`, `status`), kept in the query string. */
export const FILTERS = ["channel_id", "status"] as const

export const BroadcastFilters = ({ location }: { location: Location }) => {
  const q = location.query
  const channels = useResource(() => get<ReadonlyArray<DashboardChannel>>("/platform/dashboard/channels"), "channels")
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const changes: Record<string, string | undefined> = { after: undefined, before: undefined }
    for (const name of FILTERS) changes[name] = String(form.get(name) ?? "")
    navigate(`${location.path}${queryWith(q, changes)}`)
  }
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter broadcasts" key={`${q.toString()}|${channels.data?.length ?? 0}`}>
      <SelectField label="Channel" name="channel_id" defaultValue={q.get("channel_id") ?? ""}>
        <option value="">any</option>
        {channels.data?.filter((c) => c.type === "chat").map((c) => (
          <option key={c.channel_id} value={c.channel_id}>{c.channel_id} {c.name ?? c.display_phone_number ?? ""}</option>
        ))}
      </SelectField>
      <SelectField label="State" name="status" defaultValue={q.get("status") ?? ""}>
        <option value="">any</option>
        {BROADCAST_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <button type="submit">Apply filters</button>
    </form>
  )
}
