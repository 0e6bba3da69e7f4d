import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { noQueryParams, queryParams } from "../common.js"
import {
  ChannelUnusable,
  LegacyRowSupplyComponents,
  NotFound,
  StatusLocked,
  UpstreamFailure,
  ValidationFailed,
  wire
} from "../errors.js"
import {
  HeaderMediaResult,
  Template,
  TemplateCreate,
  TemplateListQuery,
  TemplatePatch,
  TemplateSync,
  TemplateSyncResult
} from "../template.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const TemplatePath = Schema.Struct({ template_id: PathId("The template's id") })

/** Multipart form of POST /templates/header-media: `channel_id` first, then `file`. */
export const HeaderMediaForm = HttpApiSchema.MultipartStream(
  Schema.Struct({ channel_id: Schema.String, file: Multipart.SingleFileSchema })
)

const base = "/platform/v1/templates"

/** `/platform/v1/templates` (SPEC §4.2, DESIGN §5: 7 routes): manage:templates, key or cookie. */
export class TemplatesGroup extends HttpApiGroup.make("templates")
  .add(
    HttpApiEndpoint.post("create", base)
      .setUrlParams(noQueryParams)
      .setPayload(TemplateCreate)
      .addSuccess(Template)
      .addError(wire(ValidationFailed))
      .addError(wire(ChannelUnusable))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Create a template and submit it upstream")
      .annotate(
        OpenApi.Description,
        "Two shapes: legacy `body_text` (+ `variables`, the example values of its placeholders) without " +
          "`components`, or `components` (+ `parameter_format`). The authentication category needs components. " +
          "The channel must be an active chat channel of the account (422 otherwise). `meta_status` is the " +
          "upstream's answer (usually pending); later changes arrive as template.status_changed events."
      )
  )
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(TemplateListQuery))
      .addSuccess(Schema.Array(Template))
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List templates, newest first (a plain array)")
      .annotate(
        OpenApi.Description,
        "Filters are AND-combined; a value that matches nothing gives an empty list, never 422."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:template_id`)
      .setUrlParams(noQueryParams)
      .setPath(TemplatePath)
      .addSuccess(Template)
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Get a template")
  )
  .add(
    HttpApiEndpoint.patch("update", `${base}/:template_id`)
      .setUrlParams(noQueryParams)
      .setPath(TemplatePath)
      .setPayload(TemplatePatch)
      .addSuccess(Template)
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .addError(wire(LegacyRowSupplyComponents))
      .addError(wire(ChannelUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Edit a template and re-submit it upstream")
      .annotate(
        OpenApi.Description,
        "Only the fields given change. A pending template is 409 status_locked. A row without stored " +
          "components needs `components` (422 legacy_row_supply_components). When the upstream refuses the " +
          "edit the answer is still 200: the row with meta_status rejected and the reason in meta_rejection_reason."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${base}/:template_id`)
      .setUrlParams(noQueryParams)
      .setPath(TemplatePath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(wire(NotFound))
      .addError(wire(StatusLocked))
      .addError(wire(ChannelUnusable))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Delete a template here and upstream")
  )
  .add(
    HttpApiEndpoint.post("sync", `${base}/sync`)
      .setUrlParams(noQueryParams)
      .setPayload(TemplateSync)
      .addSuccess(TemplateSyncResult)
      .addError(wire(ValidationFailed))
      .addError(wire(ChannelUnusable))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Import the channel's templates from the upstream")
      .annotate(
        OpenApi.Description,
        "Upserts every upstream template of the channel's business account by (channel, name, language_code). " +
          "`imported`: new rows; `updated`: rows whose upstream snapshot changed; `skipped`: unchanged rows and " +
          "templates the platform cannot model (another category, unknown components); `total`: upstream templates. " +
          "Idempotent."
      )
  )
  .add(
    HttpApiEndpoint.post("uploadHeaderMedia", `${base}/header-media`)
      .setPayload(HeaderMediaForm)
      .addSuccess(HeaderMediaResult)
      .addError(wire(ValidationFailed))
      .addError(wire(ChannelUnusable))
      .addError(wire(UpstreamFailure))
      .annotate(OpenApi.Summary, "Upload a header sample; returns the handle for example.header_handle")
      .annotate(
        OpenApi.Description,
        "multipart/form-data: `channel_id` (before `file`) and `file`: image/jpeg or image/png up to 5 MB, " +
          "video/mp4 up to 16 MB, application/pdf up to 100 MB. Sent to the upstream as a resumable upload."
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:templates")
  .annotate(CookieAllowed, true)
  .annotate(OpenApi.Title, "Templates")
  .annotate(OpenApi.Description, "Message templates of chat channels: create, edit, list, delete and import from the upstream.")
{}
