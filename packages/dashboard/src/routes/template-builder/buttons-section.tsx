import type { ApiError } from "../../api/api-error"
import { Field, SelectField } from "../../components/field"
import { type ButtonKind, type ButtonRow, newButton } from "./builder-model"
import { errorAt, issuesUnder } from "./field-issues"
import { SectionIssues } from "./inputs"

const LABELS: Record<ButtonKind, string> = { QUICK_REPLY: "Quick reply", URL: "URL", PHONE_NUMBER: "Phone number", COPY_CODE: "Copy code" }
const VALUE: Partial<Record<ButtonKind, { label: string; field: string; type?: string }>> = {
  URL: { label: "URL", field: "url", type: "url" },
  PHONE_NUMBER: { label: "Phone number", field: "phone_number", type: "tel" },
  COPY_CODE: { label: "Example code", field: "example" }
}

/** The rows of a BUTTONS component: add, change the kind of, remove. */
export const ButtonsSection = ({ buttons, onChange, error, at, kinds, legend, name = "Button" }: {
  buttons: ReadonlyArray<ButtonRow>
  onChange: (rows: ReadonlyArray<ButtonRow>) => void
  error: ApiError | undefined
  /** The BUTTONS component's path in a 422 (`components.3`), when there is one. */
  at: string | undefined
  kinds: ReadonlyArray<ButtonKind>
  legend: string
  /** How a row's labels begin (`Card 2 button`), unique on the page. */
  name?: string
}) => {
  const set = (i: number, row: ButtonRow) => onChange(buttons.map((b, k) => (k === i ? row : b)))
  const shown: Array<string> = []
  const rowAt = (i: number, field: string) => {
    const path = `${at}.buttons.${i}.${field}`
    shown.push(path)
    return at === undefined ? undefined : errorAt(error, path)
  }
  const rows = buttons.map((b, i) => {
    const value = VALUE[b.kind]
    const n = i + 1
    return (
      <li key={b.key} className="builder-row">
        <SelectField label={`${name} ${n} kind`} value={b.kind} onChange={(e) => set(i, { ...newButton(e.currentTarget.value as ButtonKind), key: b.key, text: b.text })}>
          {kinds.map((k) => <option key={k} value={k}>{LABELS[k]}</option>)}
        </SelectField>
        <Field label={`${name} ${n} text${b.kind === "COPY_CODE" ? " (optional)" : ""}`} name={`${at}.buttons.${i}.text`} value={b.text} maxLength={25} error={rowAt(i, "text")} onChange={(e) => set(i, { ...b, text: e.currentTarget.value })} />
        {value !== undefined
          ? <Field label={`${name} ${n} ${value.label.toLowerCase()}`} name={`${at}.buttons.${i}.${value.field}`} type={value.type} value={b.value} error={rowAt(i, value.field)} onChange={(e) => set(i, { ...b, value: e.currentTarget.value })} />
          : null}
        {b.kind === "URL" && /\{\{/.test(b.value)
          ? <div className="wide"><Field label={`${name} ${n} example URL`} name={`${at}.buttons.${i}.example`} type="url" value={b.example} hint="The URL with its placeholder filled in." error={rowAt(i, "example")} onChange={(e) => set(i, { ...b, example: e.currentTarget.value })} /></div>
          : null}
        <button type="button" onClick={() => onChange(buttons.filter((_, k) => k !== i))} aria-label={`Remove ${name.toLowerCase()} ${n}`}>Remove</button>
      </li>
    )
  })
  return (
    <fieldset>
      <legend>{legend}</legend>
      {buttons.length === 0 ? <p className="muted">No buttons.</p> : <ol className="builder-rows">{rows}</ol>}
      {at !== undefined ? <SectionIssues issues={issuesUnder(error, at, shown)} /> : null}
      <button type="button" onClick={() => onChange([...buttons, newButton(kinds[0])])} disabled={buttons.length >= 10}>Add a button</button>
    </fieldset>
  )
}
