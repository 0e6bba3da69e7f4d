import type { ApiError } from "../../api/api-error"
import type { TemplateComponent } from "../../api/types"
import { SelectField } from "../../components/field"
import { BuilderForm } from "./builder-form"
import { type BuilderState, toComponents } from "./builder-model"
import { errorAt } from "./field-issues"
import { TextAreaField } from "./inputs"

export type EditorMode = "form" | "json"
export interface EditorState {
  readonly mode: EditorMode
  readonly builder: BuilderState
  readonly json: string
  readonly jsonFormat: "" | "NAMED" | "POSITIONAL"
}

/** What the editor sends: components and their placeholder format, or why the JSON cannot be read. */
export const editorOutput = (s: EditorState): { components: Array<TemplateComponent>; parameter_format?: "NAMED" | "POSITIONAL" } | { problem: string } => {
  if (s.mode === "form") {
    const { components } = toComponents(s.builder)
    return s.builder.category === "authentication" ? { components } : { components, parameter_format: s.builder.parameterFormat }
  }
  try {
    const parsed = JSON.parse(s.json) as unknown
    if (!Array.isArray(parsed)) return { problem: "the components must be a JSON array" }
    return { components: parsed as Array<TemplateComponent>, ...(s.jsonFormat === "" ? {} : { parameter_format: s.jsonFormat }) }
  } catch (e) {
    return { problem: `the components are not valid JSON: ${(e as Error).message}` }
  }
}

/** The components of a template, built with the form or written as JSON (for shapes the form does not cover). */
export const ComponentsEditor = ({ state, onChange, error, channelId }: {
  state: EditorState
  onChange: (state: EditorState) => void
  error: ApiError | undefined
  channelId: number | undefined
}) => (
  <>
    <SelectField
      label="Components editor"
      value={state.mode}
      onChange={(e) => {
        const mode = e.currentTarget.value as EditorMode
        // Into JSON, the form's components come along, to be refined by hand.
        onChange(mode === "json" ? { ...state, mode, json: JSON.stringify(toComponents(state.builder).components, null, 2) } : { ...state, mode })
      }}
    >
      <option value="form">Form</option>
      <option value="json">JSON components</option>
    </SelectField>
    {state.mode === "form"
      ? <BuilderForm state={state.builder} onChange={(builder) => onChange({ ...state, builder })} error={error} channelId={channelId} />
      : (
        <>
          <TextAreaField label="Components (JSON array, SPEC §2.2)" name="components" rows={14} className="code-input" value={state.json} error={errorAt(error, "components")} onChange={(e) => onChange({ ...state, json: e.currentTarget.value })} />
          <SelectField label="Parameter format" value={state.jsonFormat} onChange={(e) => onChange({ ...state, jsonFormat: e.currentTarget.value as EditorState["jsonFormat"] })}>
            <option value="">Not set (positional)</option>
            <option value="POSITIONAL">POSITIONAL</option>
            <option value="NAMED">NAMED</option>
          </SelectField>
        </>
      )}
  </>
)
