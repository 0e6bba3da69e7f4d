import type { FormEvent } from "react"
import type { BroadcastRecipientsPage, RecipientStatus } from "../../api/types"
import { RECIPIENT_STATUSES } from "../../api/vocabulary"
import { SelectField } from "../../components/field"
import { Pager } from "../../components/pager"
import { Empty } from "../../components/states"
import { Time } from "../../components/time-ago"
import { type Location, navigate, queryWith } from "../../router"

const badge = (s: RecipientStatus) => (s === "failed" ? "off" : s === "pending" ? "" : s === "sent" ? "wait" : "on")

/** The recipients with their state (cursor pages and a state filter in the URL). */
export const RecipientsTable = ({ location, page }: { location: Location; page: BroadcastRecipientsPage }) => {
  const q = location.query
  const filter = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const status = String(new FormData(event.currentTarget).get("status") ?? "")
    navigate(`${location.path}${queryWith(q, { status, after: undefined, before: undefined })}`)
  }
  const filtered = q.has("status") || q.has("after") || q.has("before")
  return (
    <section aria-labelledby="recipients-heading">
      <h2 id="recipients-heading">Recipients</h2>
      <form className="filters" onSubmit={filter} aria-label="Filter recipients" key={q.toString()}>
        <SelectField label="Recipient state" name="status" defaultValue={q.get("status") ?? ""}>
          <option value="">any</option>
          {RECIPIENT_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
        <button type="submit">Filter</button>
      </form>
      {page.data.length === 0 ? <Empty>{filtered ? "No recipient matches." : "No recipients yet. Paste numbers or upload a CSV file above."}</Empty> : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Recipients</caption>
            <thead><tr><th>Number</th><th>State</th><th>Message</th><th>Error</th><th>Updated</th></tr></thead>
            <tbody>
              {page.data.map((r) => (
                <tr key={r.id}>
                  <td>{r.to}</td>
                  <td><span className={`badge ${badge(r.status)}`}>{r.status}</span></td>
                  <td className="url">{r.message_id === null ? "—" : <code>{r.message_id}</code>}</td>
                  <td>{r.error ?? "—"}</td>
                  <td><Time iso={r.updated_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager location={location} nextCursor={page.next_cursor} hasMore={page.has_more} />
    </section>
  )
}
