import type { RuntimeComponent, Template } from "./types"

/** What a template's body asks a send to fill: its placeholders in order, and whether they are named. */
export interface BodyVariables {
  readonly names: ReadonlyArray<string>
  readonly named: boolean
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g

/** The body's text: `body_text` of a body-only template, else its BODY component's text. */
const bodyTextOf = (template: Template): string => {
  if (template.components === null || template.components === undefined) return template.body_text
  const body = template.components.find((c) => String((c as { type?: unknown }).type).toUpperCase() === "BODY") as { text?: unknown } | undefined
  return typeof body?.text === "string" ? body.text : ""
}

/** The body placeholders (`{{1}}`, `{{first_name}}`), each once, as the server reads them. */
export const bodyVariables = (template: Template): BodyVariables => {
  const names: Array<string> = []
  for (const match of bodyTextOf(template).matchAll(PLACEHOLDER)) if (!names.includes(match[1]!)) names.push(match[1]!)
  return { names, named: template.parameter_format === "NAMED" || names.some((n) => !/^\d+$/.test(n)) }
}

/**
 * The runtime components that fill the body with `values` (in placeholder order), or
 * undefined when no value is given (the draft's own components then apply). A value
 * beyond the placeholders is sent as it is, for the API to refuse with its reason.
 */
export const bodyComponents = (variables: BodyVariables, values: ReadonlyArray<string>): ReadonlyArray<RuntimeComponent> | undefined => {
  if (values.length === 0) return undefined
  const parameters = values.map((text, i) =>
    variables.named && variables.names[i] !== undefined ? { type: "text" as const, text, parameter_name: variables.names[i] } : { type: "text" as const, text }
  )
  return [{ type: "body", parameters }]
}
