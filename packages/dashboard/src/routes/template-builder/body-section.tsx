import type { ApiError } from "../../api/api-error"
import { Field } from "../../components/field"
import { placeholders } from "./builder-model"
import { errorAt } from "./field-issues"
import { TextAreaField } from "./inputs"

/** A BODY text and one sample value for each of its placeholders (`example`, SPEC §2.2). */
export const BodySection = ({ text, examples, onChange, error, at, label, named }: {
  text: string
  examples: Readonly<Record<string, string>>
  onChange: (text: string, examples: Readonly<Record<string, string>>) => void
  error: ApiError | undefined
  at: string
  label: string
  named: boolean
}) => {
  const names = placeholders(text)
  const exampleAt = named ? `${at}.example.body_text_named_params` : `${at}.example.body_text.0`
  const exampleError = errorAt(error, exampleAt) ?? errorAt(error, `${at}.example`)
  return (
    <>
      <TextAreaField
        label={label}
        name={`${at}.text`}
        rows={3}
        value={text}
        error={errorAt(error, `${at}.text`)}
        hint={named ? "Placeholders by name: {{first_name}}." : "Placeholders in order: {{1}}, {{2}}, …"}
        onChange={(e) => onChange(e.currentTarget.value, examples)}
      />
      {names.map((n) => (
        <Field
          key={n}
          label={`Sample for {{${n}}}`}
          name={`${at}.example.${n}`}
          value={examples[n] ?? ""}
          required
          onChange={(e) => onChange(text, { ...examples, [n]: e.currentTarget.value })}
        />
      ))}
      {exampleError !== undefined ? <small className="field-error">{exampleError.message}</small> : null}
    </>
  )
}
