import { type FormEvent, useState } from "react"
import { ApiError } from "../../api/api-error"
import { createTemplate } from "../../api/templates"
import type { TemplateCategory, TemplateCreate } from "../../api/types"
import { ErrorBox } from "../../components/error-box"
import { Field, SelectField } from "../../components/field"
import { Empty } from "../../components/states"
import { Link, navigate } from "../../router"
import { useSubmit } from "../../use-submit"
import { emptyBuilder, placeholders } from "../template-builder/builder-model"
import { channelLabel, useChatChannels } from "../template-builder/chat-channels"
import { ComponentsEditor, editorOutput, type EditorState } from "../template-builder/components-editor"
import { errorAt } from "../template-builder/field-issues"
import { TextAreaField } from "../template-builder/inputs"

type Shape = "simple" | "components"

/** A new template: the simple shape (body text and samples) or components (form or JSON); submitted upstream on create. */
export const NewTemplatePage = () => {
  const channels = useChatChannels()
  const [channel, setChannel] = useState("")
  const [category, setCategory] = useState<TemplateCategory>("utility")
  const [shape, setShape] = useState<Shape>("components")
  const [bodyText, setBodyText] = useState("")
  const [variables, setVariables] = useState<Record<string, string>>({})
  const [editor, setEditor] = useState<EditorState>({ mode: "form", builder: emptyBuilder(), json: "[]", jsonFormat: "" })
  const { busy, error, run } = useSubmit()
  const channelId = channel === "" ? channels.data?.[0]?.channel_id : Number(channel)
  const simple = shape === "simple" && category !== "authentication"

  const changeCategory = (next: TemplateCategory) => {
    setCategory(next)
    setEditor({ ...editor, builder: { ...editor.builder, category: next } })
  }
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const common = { channel_id: channelId ?? 0, name: String(form.get("name")).trim(), language_code: String(form.get("language_code")).trim(), category }
    await run(async () => {
      let body: TemplateCreate
      if (simple) {
        body = { ...common, body_text: bodyText, variables: placeholders(bodyText).map((n) => variables[n] ?? "") }
      } else {
        const out = editorOutput(editor)
        if ("problem" in out) throw new ApiError(422, out.problem, "components", "validation_error", { detail: [{ loc: ["body", "components"], msg: out.problem }] })
        body = { ...common, ...out }
      }
      const created = await createTemplate(body)
      navigate(`/templates/${created.id}`)
    })
  }
  if (channels.data !== undefined && channels.data.length === 0) {
    return <><h1>New template</h1><Empty>Templates live on a chat channel: <Link to="/channels">connect one</Link> first.</Empty></>
  }
  return (
    <>
      <h1>New template</h1>
      <p className="muted">The template is submitted to the upstream for review; its status shows on the template's page. <Link to="/templates">All templates</Link>.</p>
      <form className="card" onSubmit={(e) => void submit(e)} aria-label="New template" noValidate>
        <div className="row">
          <SelectField label="Channel" name="channel_id" value={channel === "" ? String(channelId ?? "") : channel} onChange={(e) => setChannel(e.currentTarget.value)}>
            {channels.data?.map((c) => <option key={c.channel_id} value={c.channel_id}>{channelLabel(c)}</option>)}
          </SelectField>
          <Field label="Name" name="name" required pattern="[a-z0-9_]+" hint="Lower case letters, digits and _." error={errorAt(error, "name")} />
          <Field label="Language" name="language_code" required defaultValue="en_US" error={errorAt(error, "language_code")} />
          <SelectField label="Category" name="category" value={category} onChange={(e) => changeCategory(e.currentTarget.value as TemplateCategory)}>
            <option value="utility">utility</option>
            <option value="marketing">marketing</option>
            <option value="authentication">authentication</option>
          </SelectField>
        </div>
        {category !== "authentication" ? (
          <fieldset>
            <legend>Shape</legend>
            <label className="check"><input type="radio" name="shape" checked={shape === "simple"} onChange={() => setShape("simple")} /> Body text only</label>{" "}
            <label className="check"><input type="radio" name="shape" checked={shape === "components"} onChange={() => setShape("components")} /> Components (header, buttons, carousel…)</label>
          </fieldset>
        ) : null}
        {simple ? (
          <>
            <TextAreaField label="Body text" name="body_text" rows={3} value={bodyText} error={errorAt(error, "body_text")} hint="Placeholders in order: {{1}}, {{2}}, …" onChange={(e) => setBodyText(e.currentTarget.value)} />
            {placeholders(bodyText).map((n) => (
              <Field key={n} label={`Sample for {{${n}}}`} name={`variables.${n}`} value={variables[n] ?? ""} onChange={(e) => setVariables({ ...variables, [n]: e.currentTarget.value })} />
            ))}
            {errorAt(error, "variables") !== undefined ? <small className="field-error">{errorAt(error, "variables")!.message}</small> : null}
          </>
        ) : <ComponentsEditor state={editor} onChange={setEditor} error={error} channelId={channelId} />}
        <ErrorBox error={error} />
        <button type="submit" className="primary" disabled={busy || channelId === undefined}>Create template</button>
      </form>
    </>
  )
}
