import { type FormEvent, useState } from "react"
import { ApiError } from "../../api/api-error"
import { patchTemplate, statusOf } from "../../api/templates"
import type { Template, TemplateCategory } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { SelectField } from "../../components/field"
import { useSubmit } from "../../use-submit"
import { emptyBuilder } from "../template-builder/builder-model"
import { builderOf } from "../template-builder/builder-from-template"
import { ComponentsEditor, editorOutput, type EditorState } from "../template-builder/components-editor"

const initial = (t: Template): EditorState => {
  const builder = builderOf(t)
  return builder !== undefined
    ? { mode: "form", builder, json: "[]", jsonFormat: "" }
    : { mode: "json", builder: emptyBuilder(t.category), json: JSON.stringify(t.components ?? [], null, 2), jsonFormat: t.parameter_format ?? "" }
}

/** PATCH /templates/{id} with the edited components (and category): re-submitted for review. */
export const EditTemplateForm = ({ template, onSaved }: { template: Template; onSaved: (t: Template) => void }) => {
  const [editor, setEditor] = useState(() => initial(template))
  const [category, setCategory] = useState<TemplateCategory>(template.category)
  const { busy, error, run } = useSubmit()
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    await run(async () => {
      const out = editorOutput(editor)
      if ("problem" in out) throw new ApiError(422, out.problem, "components", "validation_error", { detail: [{ loc: ["body", "components"], msg: out.problem }] })
      onSaved(await patchTemplate(template.id, { ...out, ...(category !== template.category ? { category } : {}) }))
    })
  }
  const locked = error?.code === "status_locked"
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-labelledby="edit-title" noValidate>
      <h2 id="edit-title">Edit</h2>
      <p className="muted">Saving submits the template for review again. The upstream takes edits of approved and rejected templates only.</p>
      {statusOf(template) === "pending" ? <p className="notice card">Under review: an edit is refused until the upstream has decided.</p> : null}
      <SelectField
        label="Edit category"
        value={category}
        onChange={(e) => {
          const next = e.currentTarget.value as TemplateCategory
          setCategory(next)
          setEditor({ ...editor, builder: { ...editor.builder, category: next } })
        }}
      >
        <option value="utility">utility</option>
        <option value="marketing">marketing</option>
        <option value="authentication">authentication</option>
      </SelectField>
      <ComponentsEditor state={editor} onChange={setEditor} error={error} channelId={template.platform_channel_id ?? undefined} />
      {locked ? <p className="error" role="alert" data-testid="status-locked"><strong>Locked while under review (409 status_locked)</strong>: {error.message}</p> : <ErrorBox error={error} />}
      <button type="submit" className="primary" disabled={busy}>Save changes</button>
    </form>
  )
}
