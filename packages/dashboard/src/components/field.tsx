import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, useId } from "react"
import type { ApiError } from "../api/api-error"

/** A labelled input; marked invalid (and described by the error) when the API's error names its field. */
export const Field = ({ label, name, error, hint, ...input }: {
  label: ReactNode
  name: string
  error?: ApiError | undefined
  hint?: ReactNode
} & InputHTMLAttributes<HTMLInputElement>) => {
  const id = useId()
  const invalid = error?.field === name
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={invalid || undefined} aria-describedby={invalid ? `${id}-error` : undefined} {...input} />
      {hint !== undefined ? <small className="muted">{hint}</small> : null}
      {invalid ? <small className="field-error" id={`${id}-error`}>{error!.message}</small> : null}
    </div>
  )
}

/** A labelled select (the label alone names it, not its chosen option). */
export const SelectField = ({ label, children, ...select }: { label: ReactNode; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) => {
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select}>{children}</select>
    </div>
  )
}
