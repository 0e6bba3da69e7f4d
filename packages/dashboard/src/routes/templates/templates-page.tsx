import { listTemplates, statusOf, TEMPLATE_FILTERS, type TemplateFilters as Filters } from "../../api/templates"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, type Location } from "../../router"
import { useResource } from "../../use-resource"
import { useChatChannels } from "../template-builder/chat-channels"
import { StatusBadge } from "./status-badge"
import { SyncForm } from "./sync-form"
import { TemplateFilters } from "./template-filters"
import { usePollWhile } from "./use-poll-while"

/** Rows a page shows. GET /templates answers one array, newest first; the console pages it by id. */
const PAGE = 25

/** Templates: the filtered list in pages (filters and the page's cursor in the URL), live status, sync per channel. */
export const TemplatesPage = ({ location }: { location: Location }) => {
  const filters: Filters = {}
  for (const name of TEMPLATE_FILTERS) {
    const value = location.query.get(name)
    if (value !== null && value !== "") filters[name] = value
  }
  const after = Number(location.query.get("after") ?? "") || undefined
  const key = JSON.stringify(filters)
  const templates = useResource(() => listTemplates(filters), key)
  const channels = useChatChannels()
  const pending = templates.data?.some((t) => statusOf(t) === "pending") ?? false
  usePollWhile(pending, templates.reload, templates.data)
  const older = templates.data?.filter((t) => after === undefined || t.id < after) ?? []
  const rows = older.slice(0, PAGE)
  const filtered = Object.keys(filters).length > 0
  return (
    <>
      <h1>Templates</h1>
      <p className="muted">Message templates of the chat channels, with the upstream's review status. <Link to="/templates/new">Create a template</Link>.</p>
      <TemplateFilters location={location} channels={channels.data} />
      <ErrorBox error={templates.error} />
      {templates.loading && templates.data === undefined ? <Loading what="templates" /> : null}
      {templates.data !== undefined && rows.length === 0
        ? <Empty>{filtered || after ? "No templates match these filters." : <>No templates yet. <Link to="/templates/new">Create one</Link>, or sync a channel below.</>}</Empty>
        : null}
      {rows.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Templates</caption>
            <thead><tr><th>Name</th><th>Language</th><th>Category</th><th>Status</th><th>Rejection reason</th><th>Channel</th><th>Created</th></tr></thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id}>
                  <td><Link to={`/templates/${t.id}`}>{t.name}</Link></td>
                  <td>{t.language_code}</td>
                  <td>{t.category}</td>
                  <td><StatusBadge template={t} /></td>
                  <td>{t.meta_rejection_reason ?? <span className="muted">—</span>}</td>
                  <td>{t.platform_channel_id ?? "—"}</td>
                  <td><Time iso={t.created_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {templates.data !== undefined ? <Pager location={location} nextCursor={rows.length > 0 ? String(rows[rows.length - 1]!.id) : null} hasMore={older.length > PAGE} /> : null}
      {channels.data !== undefined && channels.data.length > 0 ? <SyncForm channels={channels.data} onSynced={templates.reload} /> : null}
    </>
  )
}
