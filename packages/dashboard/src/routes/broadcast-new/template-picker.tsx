import { approvedTemplates } from "../../api/broadcasts"
import type { Template } from "../../api/types"
import { bodyVariables } from "../../api/template-variables"
import type { ApiError } from "../../api/api-error"
import { Field, SelectField } from "../../components/field"
import { ErrorBox } from "../../components/error-box"
import { useResource } from "../../use-resource"

/** A template's value in the select: its id (name and language both come with it). */
export const templateKey = (t: Template) => String(t.id)

/**
 * The channel's approved templates (a broadcast sends only those) and, for the one chosen,
 * an input per body placeholder: the default variables of every recipient without its own.
 */
export const TemplatePicker = ({ channelId, chosen, onChoose, error }: {
  channelId: number | undefined
  chosen: Template | undefined
  onChoose: (t: Template | undefined) => void
  error: ApiError | undefined
}) => {
  const templates = useResource(
    () => (channelId === undefined ? Promise.resolve([]) : approvedTemplates(channelId)),
    String(channelId)
  )
  const list = templates.data ?? []
  const variables = chosen === undefined ? undefined : bodyVariables(chosen)
  return (
    <>
      <ErrorBox error={templates.error} />
      <SelectField label="Template" name="template" required value={chosen === undefined ? "" : templateKey(chosen)}
        onChange={(e) => onChoose(list.find((t) => templateKey(t) === e.target.value))} disabled={channelId === undefined}>
        <option value="">{templates.loading ? "Loading templates…" : list.length === 0 ? "No approved template on this channel" : "Choose a template"}</option>
        {list.map((t) => <option key={t.id} value={templateKey(t)}>{t.name} ({t.language_code})</option>)}
      </SelectField>
      {chosen !== undefined ? (
        <>
          <p className="muted" data-testid="template-body">{chosen.body_text}</p>
          <Field label="Language" name="language_code" readOnly value={chosen.language_code} hint="The template's language: a template is approved per language." error={error} />
        </>
      ) : null}
      {variables !== undefined && variables.names.length > 0 ? (
        <fieldset>
          <legend>Default variables (a recipient's own variables replace them)</legend>
          <div className="row">
            {variables.names.map((n) => (
              <Field key={n} label={`{{${n}}}`} name={`var:${n}`} error={error} />
            ))}
          </div>
        </fieldset>
      ) : null}
    </>
  )
}
