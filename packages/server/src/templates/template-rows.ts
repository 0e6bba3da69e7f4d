import {
  type ParameterFormat,
  type Template,
  type TemplateCategory,
  TemplateComponentResponse
} from "@platform/shared"
import { Schema } from "effect"
import type { ListedTemplate } from "../upstream/templates.js"

/** A `templates` row as selected by `TEMPLATE_COLUMNS`. */
export interface TemplateRow {
  readonly id: number
  readonly platform_channel_id: number | null
  readonly name: string
  readonly language_code: string
  readonly category: TemplateCategory
  readonly body_text: string
  readonly variables: unknown
  readonly components: ReadonlyArray<unknown> | null
  readonly parameter_format: ParameterFormat | null
  readonly header_format: string | null
  readonly is_active: boolean
  readonly meta_status: string | null
  readonly meta_category: string | null
  readonly meta_template_id: string | null
  readonly meta_rejection_reason: string | null
  readonly created_at: Date
}

export const TEMPLATE_COLUMNS = `id, platform_channel_id, name, language_code, category, body_text, variables, components,
  parameter_format, header_format, is_active, meta_status, meta_category, meta_template_id, meta_rejection_reason, created_at`

/** SPEC §2.1 resource of a row. */
export const templateToWire = (row: TemplateRow): Template => ({
  id: row.id,
  name: row.name,
  language_code: row.language_code,
  category: row.category,
  body_text: row.body_text,
  variables: Array.isArray(row.variables) ? row.variables.map(String) : [],
  components: (row.components as Template["components"]) ?? null,
  parameter_format: row.parameter_format,
  header_format: row.header_format,
  is_active: row.is_active,
  platform_channel_id: row.platform_channel_id,
  meta_status: row.meta_status,
  meta_category: row.meta_category,
  meta_template_id: row.meta_template_id,
  meta_rejection_reason: row.meta_rejection_reason,
  created_at: row.created_at.toISOString()
})

type Json = { readonly [key: string]: unknown }
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const componentOf = (components: ReadonlyArray<unknown>, type: string): Json | undefined =>
  components.find((c): c is Json => isObject(c) && String(c["type"]).toUpperCase() === type)

/**
 * What a row keeps beside its components: `body_text` is the BODY's text (or the
 * given body_text when the BODY carries none, as in authentication templates),
 * `variables` the sample values of the body placeholders, `header_format` the HEADER's.
 */
export const derivedColumns = (components: ReadonlyArray<unknown>, fallbackBody: string | undefined) => {
  const body = componentOf(components, "BODY")
  const example = isObject(body?.["example"]) ? body["example"] : undefined
  const positional = Array.isArray(example?.["body_text"]) && Array.isArray(example["body_text"][0])
    ? (example["body_text"][0] as ReadonlyArray<unknown>)
    : undefined
  const named = Array.isArray(example?.["body_text_named_params"])
    ? (example["body_text_named_params"] as ReadonlyArray<unknown>).map((p) => (isObject(p) ? p["example"] : ""))
    : undefined
  const header = componentOf(components, "HEADER")
  return {
    body_text: typeof body?.["text"] === "string" ? body["text"] : fallbackBody ?? "",
    variables: (positional ?? named ?? []).map(String),
    header_format: typeof header?.["format"] === "string" ? header["format"].toUpperCase() : null
  }
}

const isResponseComponents = Schema.is(Schema.Array(TemplateComponentResponse))

/*
 * Meta answers an authentication FOOTER with both the rendered text and
 * code_expiration_minutes; the platform's FOOTER carries one of them.
 */
const normalizeComponent = (c: unknown): unknown =>
  isObject(c) && c["type"] === "FOOTER" && c["code_expiration_minutes"] !== undefined && c["text"] !== undefined
    ? { type: "FOOTER", code_expiration_minutes: c["code_expiration_minutes"] }
    : c

const CATEGORIES: ReadonlyArray<string> = ["utility", "marketing", "authentication"]

/** The row values of an upstream template, or undefined when the platform cannot model it (counted as skipped). */
export const rowFromUpstream = (t: ListedTemplate) => {
  const category = t.category.toLowerCase()
  if (!CATEGORIES.includes(category)) return undefined
  const components = (t.components ?? []).map(normalizeComponent)
  if (!isResponseComponents(components)) return undefined
  const format = t.parameter_format?.toUpperCase()
  return {
    name: t.name,
    language_code: t.language,
    category,
    ...derivedColumns(components, undefined),
    components,
    parameter_format: format === "NAMED" || format === "POSITIONAL" ? format : null,
    meta_status: t.status.toLowerCase(),
    meta_category: category,
    meta_template_id: t.id,
    meta_rejection_reason: t.rejected_reason
  }
}
