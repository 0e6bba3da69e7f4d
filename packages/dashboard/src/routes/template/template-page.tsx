import { useState } from "react"
import type { ApiError } from "../../api/api-error"
import { deleteTemplate, getTemplate, statusOf } from "../../api/templates"
import type { Template } from "../../api/types"
import { ConfirmButton } from "../../components/confirm-button"
import { ErrorBox } from "../../components/error-box"
import { Loading } from "../../components/states"
import { Time } from "../../components/time-ago"
import { Link, navigate } from "../../router"
import { useResource } from "../../use-resource"
import { StatusBadge } from "../templates/status-badge"
import { usePollWhile } from "../templates/use-poll-while"
import { EditTemplateForm } from "./edit-template-form"

const Facts = ({ t }: { t: Template }) => (
  <dl className="facts">
    <dt>Status</dt><dd><StatusBadge template={t} /></dd>
    {t.meta_rejection_reason ? <><dt>Rejection reason</dt><dd data-testid="rejection-reason">{t.meta_rejection_reason}</dd></> : null}
    <dt>Language</dt><dd>{t.language_code}</dd>
    <dt>Category</dt><dd>{t.category}{t.meta_category && t.meta_category.toLowerCase() !== t.category ? ` (upstream: ${t.meta_category.toLowerCase()})` : ""}</dd>
    <dt>Channel</dt><dd>{t.platform_channel_id === null || t.platform_channel_id === undefined ? "—" : <Link to={`/channels/${t.platform_channel_id}`}>{t.platform_channel_id}</Link>}</dd>
    <dt>Upstream id</dt><dd>{t.meta_template_id ?? "—"}</dd>
    <dt>Parameter format</dt><dd>{t.parameter_format ?? "POSITIONAL"}</dd>
    {t.header_format ? <><dt>Header</dt><dd>{t.header_format}</dd></> : null}
    <dt>Body</dt><dd>{t.body_text || <span className="muted">(written by the upstream)</span>}</dd>
    <dt>Created</dt><dd><Time iso={t.created_at} /></dd>
  </dl>
)

/** A template: its status (followed live while under review), components, edit and delete. */
export const TemplatePage = ({ id }: { id: string }) => {
  const template = useResource(() => getTemplate(id), id)
  const [deleteError, setDeleteError] = useState<ApiError>()
  const t = template.data
  usePollWhile(t !== undefined && statusOf(t) === "pending", template.reload, t)
  const remove = async () => {
    try {
      await deleteTemplate(Number(id))
      navigate("/templates")
    } catch (e) {
      setDeleteError(e as ApiError)
    }
  }
  return (
    <>
      <p><Link to="/templates">« Templates</Link></p>
      <ErrorBox error={template.error} />
      {template.loading && t === undefined ? <Loading what="the template" /> : null}
      {t !== undefined ? (
        <>
          <h1>{t.name}</h1>
          <Facts t={t} />
          <h2>Components</h2>
          {t.components === null || t.components === undefined
            ? <p className="muted">None stored: the template was created with body text only ({t.variables.length} sample value{t.variables.length === 1 ? "" : "s"}). Saving an edit stores components.</p>
            : <pre className="code" data-testid="components">{JSON.stringify(t.components, null, 2)}</pre>}
          <EditTemplateForm key={t.id} template={t} onSaved={template.reload} />
          <section className="card" aria-labelledby="delete-title">
            <h2 id="delete-title">Delete</h2>
            <p className="muted">Deletes the template here and upstream; messages can no longer be sent with it.</p>
            <ConfirmButton label="Delete template" title={`Delete template ${t.name}?`} confirmLabel="Delete" action={remove}>
              <p>The template <strong>{t.name}</strong> ({t.language_code}) is deleted here and from the channel's business account upstream.</p>
            </ConfirmButton>
            <ErrorBox error={deleteError} />
          </section>
        </>
      ) : null}
    </>
  )
}
