import { type TextareaHTMLAttributes, useId } from "react"
import type { ApiError } from "../../api/api-error"
import type { FieldIssue } from "./field-issues"

/** A labelled textarea, marked invalid like `Field` when the API's error names it. */
export const TextAreaField = ({ label, name, error, hint, ...area }: {
  label: string
  name: string
  error?: ApiError | undefined
  hint?: string
} & TextareaHTMLAttributes<HTMLTextAreaElement>) => {
  const id = useId()
  const invalid = error?.field === name
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} aria-invalid={invalid || undefined} aria-describedby={invalid ? `${id}-error` : undefined} {...area} />
      {hint !== undefined ? <small className="muted">{hint}</small> : null}
      {invalid ? <small className="field-error" id={`${id}-error`}>{error!.message}</small> : null}
    </div>
  )
}

/** A section's issues that no single input shows (a count rule, a missing component). */
export const SectionIssues = ({ issues }: { issues: ReadonlyArray<FieldIssue> }) =>
  issues.length === 0 ? null : (
    <ul className="field-error section-issues">
      {issues.map((i) => <li key={`${i.field}|${i.message}`}><code>{i.field}</code>: {i.message}</li>)}
    </ul>
  )
