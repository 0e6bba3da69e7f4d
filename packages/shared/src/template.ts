import { Schema } from "effect"
import { Id, type Issue, NonBlankString, NonEmptyString, Timestamp, optional, requestBody } from "./common.js"
import { BooleanParam, IntegerParam } from "./param.js"
import {
  ParameterFormat,
  TemplateCategory,
  TemplateComponentResponse,
  TemplateComponents,
  templateComponentIssues
} from "./template-components.js"

/** Template resource (SPEC §2.1). */
export const Template = Schema.Struct({
  id: Id,
  name: Schema.String,
  language_code: Schema.String,
  category: TemplateCategory,
  body_text: Schema.String,
  variables: Schema.Array(Schema.String),
  components: optional(Schema.NullOr(Schema.Array(TemplateComponentResponse))),
  parameter_format: optional(Schema.NullOr(ParameterFormat)),
  header_format: optional(Schema.NullOr(Schema.String)),
  is_active: Schema.Boolean,
  platform_channel_id: optional(Schema.NullOr(Id)),
  meta_status: optional(Schema.NullOr(Schema.String)),
  meta_category: optional(Schema.NullOr(Schema.String)),
  meta_template_id: optional(Schema.NullOr(Schema.String)),
  meta_rejection_reason: optional(Schema.NullOr(Schema.String)),
  created_at: Timestamp
}).annotations({ identifier: "Template" })
export type Template = typeof Template.Type

const prefixed = (prefix: PropertyKey, issues: ReadonlyArray<Issue>): Array<Issue> =>
  issues.map((i) => ({ path: [prefix, ...i.path], message: i.message }))

/**
 * POST /templates body: either legacy `body_text` (+ `variables`) without components, or
 * `components` (+ `parameter_format`; a `body_text` beside them is ignored at submit).
 */
export const TemplateCreate = requestBody(
  Schema.Struct({
    channel_id: Id,
    name: NonEmptyString,
    language_code: NonBlankString,
    category: TemplateCategory,
    body_text: optional(Schema.String),
    variables: optional(Schema.Array(Schema.String)),
    components: optional(TemplateComponents),
    parameter_format: optional(ParameterFormat)
  }).pipe(
    Schema.filter((t): Array<Issue> => {
      if (t.components === undefined) {
        if (t.category === "authentication") {
          return [{ path: ["components"], message: "the authentication category requires components" }]
        }
        if (t.body_text === undefined) return [{ path: ["body_text"], message: "body_text or components is required" }]
        if (!/\S/u.test(t.body_text)) return [{ path: ["body_text"], message: "must not be empty or only whitespace" }]
        if (t.parameter_format !== undefined) {
          return [{ path: ["parameter_format"], message: "parameter_format goes with components" }]
        }
        return []
      }
      if (t.variables !== undefined) {
        return [{ path: ["variables"], message: "variables belong to the legacy body_text shape, not to components" }]
      }
      return prefixed("components", templateComponentIssues(t.components, t))
    })
  ),
  "TemplateCreate"
)
export type TemplateCreate = typeof TemplateCreate.Type

/** PATCH /templates/{id}: any subset; category rules are checked when both are present. */
export const TemplatePatch = requestBody(
  Schema.Struct({
    body_text: optional(Schema.String),
    category: optional(TemplateCategory),
    components: optional(TemplateComponents),
    parameter_format: optional(ParameterFormat),
    variables: optional(Schema.Array(Schema.String))
  }).pipe(
    Schema.filter((t) =>
      t.components === undefined ? undefined : prefixed("components", templateComponentIssues(t.components, t))
    )
  ),
  "TemplatePatch"
)
export type TemplatePatch = typeof TemplatePatch.Type

export const TemplateSync = requestBody(Schema.Struct({ channel_id: Id }), "TemplateSync")
export type TemplateSync = typeof TemplateSync.Type

export const TemplateSyncResult = Schema.Struct({
  imported: Schema.Int,
  updated: Schema.Int,
  skipped: Schema.Int,
  total: Schema.Int
}).annotations({ identifier: "TemplateSyncResult" })
export type TemplateSyncResult = typeof TemplateSyncResult.Type

/** POST /templates/header-media result: the upload handle for `example.header_handle`. */
export const HeaderMediaResult = Schema.Struct({ handle: Schema.String }).annotations({
  identifier: "HeaderMediaResult"
})
export type HeaderMediaResult = typeof HeaderMediaResult.Type

/**
 * GET /templates filters (DESIGN §5), AND-combined. Text filters take any value (an
 * unknown one matches nothing); `channel_id` and `is_active` must be well-formed.
 */
export const TemplateListQuery = Schema.Struct({
  channel_id: optional(IntegerParam("Only templates of this channel.")),
  name: optional(Schema.String.annotations({ description: "Only templates with exactly this name." })),
  language_code: optional(Schema.String.annotations({ description: "Only templates in this language, e.g. en_US." })),
  category: optional(Schema.String.annotations({ description: "utility, marketing or authentication." })),
  status: optional(Schema.String.annotations({ description: "The upstream status: pending, approved or rejected." })),
  is_active: optional(BooleanParam("`true`: only active templates; `false`: only inactive ones."))
})
export type TemplateListQuery = typeof TemplateListQuery.Type
