import type { RuntimeComponent, ValidationIssue } from "@platform/shared"

/** The columns of a local template row that fix what a send must fill. */
export interface StoredTemplate {
  readonly name: string
  readonly body_text: string
  readonly components: ReadonlyArray<unknown> | null
  readonly parameter_format: "NAMED" | "POSITIONAL" | null
}

type Json = { readonly [key: string]: unknown }

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g

/** Distinct placeholder names of a text, in order of first appearance. */
export const placeholdersOf = (text: string | undefined | null): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const match of (text ?? "").matchAll(PLACEHOLDER)) if (!out.includes(match[1]!)) out.push(match[1]!)
  return out
}

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const upper = (u: unknown) => (typeof u === "string" ? u.toUpperCase() : "")

const componentOf = (components: ReadonlyArray<unknown>, type: string): Json | undefined =>
  components.find((c): c is Json => isObject(c) && upper(c["type"]) === type)

const issue = (loc: ReadonlyArray<string | number>, msg: string, input: unknown, ctx: Json = {}): ValidationIssue => ({
  loc: ["body", ...loc],
  msg,
  type: "template_parameter_mismatch",
  input: input === undefined ? null : input,
  ctx: { ...ctx }
})

const HEADER_PARAMETER: Readonly<Record<string, string>> = {
  IMAGE: "image",
  VIDEO: "video",
  DOCUMENT: "document",
  LOCATION: "location"
}

const BUTTON_SUB_TYPE: Readonly<Record<string, string>> = {
  QUICK_REPLY: "quick_reply",
  URL: "url",
  COPY_CODE: "copy_code"
}

/**
 * Checks the runtime components of a template send against the local copy of the
 * template (header, body and button parameters: count, kinds and NAMED parameter
 * names), so the mistakes Meta answers with 132000/132012 are a 422 before any
 * upstream call. Carousel cards are left to the upstream. Empty when consistent.
 */
export const checkTemplateParameters = (
  template: StoredTemplate,
  runtime: ReadonlyArray<RuntimeComponent> | undefined
): ReadonlyArray<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  const given = runtime ?? []
  const stored = template.components ?? []
  const at = (i: number, ...rest: ReadonlyArray<string | number>) => ["components", i, ...rest]

  // Body ------------------------------------------------------------------------------
  const bodyText = template.components === null ? template.body_text : componentOf(stored, "BODY")?.["text"]
  const expected = placeholdersOf(typeof bodyText === "string" ? bodyText : "")
  const named = template.parameter_format === "NAMED" || expected.some((p) => !/^\d+$/.test(p))
  const bodyIndex = given.findIndex((c) => c.type === "body")
  const body = bodyIndex >= 0 ? given[bodyIndex] : undefined
  const parameters = body?.type === "body" ? body.parameters : []
  if (expected.length > 0 && body === undefined) {
    issues.push(issue(["components"], `template ${template.name} expects ${expected.length} body parameter(s) (${expected.map((p) => `{{${p}}}`).join(", ")}); no body component was given`, runtime, { expected: expected.length }))
  } else if (body !== undefined && named) {
    const names = parameters.map((p) => (p.type === "text" ? p.parameter_name : undefined))
    parameters.forEach((p, j) => {
      const name = p.type === "text" ? p.parameter_name : undefined
      if (name === undefined) {
        issues.push(issue(at(bodyIndex, "parameters", j, "parameter_name"), `template ${template.name} uses named parameters: every body parameter needs parameter_name`, p))
      } else if (!expected.includes(name)) {
        issues.push(issue(at(bodyIndex, "parameters", j, "parameter_name"), `template ${template.name} has no body placeholder {{${name}}}; expected ${expected.map((e) => `{{${e}}}`).join(", ") || "none"}`, name, { expected }))
      }
    })
    const missing = expected.filter((e) => !names.includes(e))
    if (missing.length > 0) {
      issues.push(issue(at(bodyIndex, "parameters"), `template ${template.name} needs body parameter(s) ${missing.map((m) => `{{${m}}}`).join(", ")}`, parameters, { missing }))
    }
  } else if (body !== undefined) {
    parameters.forEach((p, j) => {
      if (p.type === "text" && p.parameter_name !== undefined) {
        issues.push(issue(at(bodyIndex, "parameters", j, "parameter_name"), `template ${template.name} uses positional parameters: parameter_name is not allowed`, p.parameter_name))
      }
    })
    if (parameters.length !== expected.length) {
      issues.push(issue(at(bodyIndex, "parameters"), `template ${template.name} expects ${expected.length} body parameter(s), got ${parameters.length}`, parameters, { expected: expected.length, given: parameters.length }))
    }
  }

  // Header ----------------------------------------------------------------------------
  const header = componentOf(stored, "HEADER")
  const format = upper(header?.["format"])
  const headerIndex = given.findIndex((c) => c.type === "header")
  const runtimeHeader = headerIndex >= 0 ? given[headerIndex] : undefined
  const headerParams = runtimeHeader?.type === "header" ? runtimeHeader.parameters : []
  const textPlaceholders = format === "TEXT" ? placeholdersOf(typeof header?.["text"] === "string" ? header["text"] : "") : []
  const mediaKind = HEADER_PARAMETER[format]
  if (mediaKind !== undefined) {
    if (runtimeHeader === undefined) {
      issues.push(issue(["components"], `template ${template.name} has a ${format} header: a header component with one ${mediaKind} parameter is required`, runtime, { expected: mediaKind }))
    } else if (headerParams.length !== 1 || headerParams[0]!.type !== mediaKind) {
      issues.push(issue(at(headerIndex, "parameters"), `template ${template.name} has a ${format} header: exactly one ${mediaKind} parameter is required`, headerParams, { expected: mediaKind }))
    }
  } else if (textPlaceholders.length > 0) {
    if (runtimeHeader === undefined) {
      issues.push(issue(["components"], `template ${template.name} expects ${textPlaceholders.length} header parameter(s); no header component was given`, runtime, { expected: textPlaceholders.length }))
    } else if (headerParams.length !== textPlaceholders.length) {
      issues.push(issue(at(headerIndex, "parameters"), `template ${template.name} expects ${textPlaceholders.length} header parameter(s), got ${headerParams.length}`, headerParams, { expected: textPlaceholders.length, given: headerParams.length }))
    }
  } else if (runtimeHeader !== undefined && headerParams.length > 0) {
    issues.push(issue(at(headerIndex), `template ${template.name} has no header placeholder to fill`, runtimeHeader))
  }

  // Buttons ---------------------------------------------------------------------------
  const buttons = componentOf(stored, "BUTTONS")?.["buttons"]
  const storedButtons: ReadonlyArray<unknown> = Array.isArray(buttons) ? buttons : []
  given.forEach((c, i) => {
    if (c.type !== "button") return
    const button = storedButtons[Number(c.index)]
    if (!isObject(button)) {
      issues.push(issue(at(i, "index"), `template ${template.name} has no button at index ${c.index} (it has ${storedButtons.length})`, c.index))
      return
    }
    const expectedSubType = BUTTON_SUB_TYPE[upper(button["type"])]
    if (expectedSubType !== undefined && expectedSubType !== c.sub_type) {
      issues.push(issue(at(i, "sub_type"), `button ${c.index} of template ${template.name} is ${upper(button["type"])}: sub_type must be ${expectedSubType}`, c.sub_type, { expected: expectedSubType }))
      return
    }
    if (expectedSubType === "url" && placeholdersOf(typeof button["url"] === "string" ? button["url"] : "").length === 0) {
      issues.push(issue(at(i), `button ${c.index} of template ${template.name} is a static URL: it takes no parameter`, c))
    }
  })
  return issues
}
