import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Schema } from "effect"
import { type GraphClient, requireWaba, Success } from "./client.js"
import type { ChannelCredentials } from "./credentials.js"
import { UpstreamRequestInvalid } from "./errors.js"

export interface TemplateSubmission {
  readonly name: string
  readonly language: string
  /** UTILITY, MARKETING or AUTHENTICATION; lower case is accepted and upper-cased. */
  readonly category: string
  /** Meta's template components (HEADER, BODY, FOOTER, BUTTONS, CAROUSEL). */
  readonly components: ReadonlyArray<unknown>
  readonly parameter_format?: "NAMED" | "POSITIONAL" | undefined
}

export interface TemplateEdit {
  readonly components?: ReadonlyArray<unknown> | undefined
  readonly category?: string | undefined
  readonly parameter_format?: "NAMED" | "POSITIONAL" | undefined
}

const StrOrNum = Schema.Union(Schema.String, Schema.Number)

const CreatedTemplate = Schema.Struct({
  id: StrOrNum,
  status: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String)
})

export const UpstreamTemplate = Schema.Struct({
  id: StrOrNum,
  name: Schema.String,
  language: Schema.String,
  status: Schema.String,
  category: Schema.String,
  components: Schema.optional(Schema.Array(Schema.Unknown)),
  parameter_format: Schema.optional(Schema.String),
  rejected_reason: Schema.optional(Schema.String),
  quality_score: Schema.optional(Schema.Unknown)
})

const TemplatePage = Schema.Struct({
  data: Schema.Array(UpstreamTemplate),
  paging: Schema.optional(Schema.Struct({
    cursors: Schema.optional(Schema.Struct({ before: Schema.optional(Schema.String), after: Schema.optional(Schema.String) })),
    next: Schema.optional(Schema.String)
  }))
})

export interface ListedTemplate {
  /** Upstream template id, always a string (SPEC §2.1 meta_template_id). */
  readonly id: string
  readonly name: string
  readonly language: string
  /** Upper case as Meta writes it: APPROVED, PENDING, REJECTED, PAUSED, DISABLED. */
  readonly status: string
  readonly category: string
  readonly components: ReadonlyArray<unknown> | null
  readonly parameter_format: string | null
  readonly rejected_reason: string | null
}

const UploadSession = Schema.Struct({ id: Schema.String })
const UploadHandle = Schema.Struct({ h: Schema.String })

const MAX_PAGES = 200

export const makeTemplatesApi = (graph: GraphClient, appId: string) => {
  /** `POST /{waba_id}/message_templates`; Meta answers with the id and PENDING (or APPROVED). */
  const createTemplate = (creds: ChannelCredentials, t: TemplateSubmission) =>
    Effect.gen(function*() {
      const waba = yield* requireWaba(creds, "template submit")
      const res = yield* graph.call({
        operation: "templates.create",
        method: "POST",
        path: `/${waba}/message_templates`,
        token: creds.access_token,
        json: {
          name: t.name,
          language: t.language,
          category: t.category.toUpperCase(),
          components: t.components,
          ...(t.parameter_format ? { parameter_format: t.parameter_format } : {})
        }
      }, CreatedTemplate)
      return { id: String(res.id), status: res.status ?? "PENDING", category: res.category ?? t.category.toUpperCase() }
    })

  /** `POST /{template_id}`: edits components or category; the template goes back to review. */
  const editTemplate = (creds: ChannelCredentials, templateId: string, edit: TemplateEdit) =>
    Effect.gen(function*() {
      yield* requireWaba(creds, "template edit")
      const res = yield* graph.call({
        operation: "templates.edit",
        method: "POST",
        path: `/${encodeURIComponent(templateId)}`,
        token: creds.access_token,
        json: {
          ...(edit.components ? { components: edit.components } : {}),
          ...(edit.category ? { category: edit.category.toUpperCase() } : {}),
          ...(edit.parameter_format ? { parameter_format: edit.parameter_format } : {})
        }
      }, Success)
      return { success: res.success }
    })

  /** `DELETE /{waba_id}/message_templates?name=` (every language), or one language with `hsm_id`. */
  const deleteTemplate = (creds: ChannelCredentials, t: { readonly name: string; readonly hsm_id?: string | undefined }) =>
    Effect.gen(function*() {
      const waba = yield* requireWaba(creds, "template delete")
      yield* graph.call({
        operation: "templates.delete",
        method: "DELETE",
        path: `/${waba}/message_templates`,
        query: { name: t.name, hsm_id: t.hsm_id },
        token: creds.access_token
      }, Success)
      return { deleted: true as const }
    })

  /**
   * Every template of the WABA, following `paging.cursors.after` until Meta stops
   * sending `paging.next`. The `next` URL itself is not followed: it embeds the token.
   */
  const listTemplates = (creds: ChannelCredentials, options: { readonly name?: string | undefined; readonly pageSize?: number | undefined } = {}) =>
    Effect.gen(function*() {
      const waba = yield* requireWaba(creds, "template list")
      const all: Array<ListedTemplate> = []
      let after: string | undefined
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = yield* graph.call({
          operation: "templates.list",
          method: "GET",
          path: `/${waba}/message_templates`,
          query: {
            fields: "id,name,language,status,category,components,parameter_format,rejected_reason,quality_score",
            limit: options.pageSize ?? 100,
            name: options.name,
            after
          },
          token: creds.access_token
        }, TemplatePage)
        for (const t of res.data) {
          all.push({
            id: String(t.id),
            name: t.name,
            language: t.language,
            status: t.status,
            category: t.category,
            components: t.components ?? null,
            parameter_format: t.parameter_format ?? null,
            rejected_reason: t.rejected_reason && t.rejected_reason !== "NONE" ? t.rejected_reason : null
          })
        }
        after = res.paging?.cursors?.after
        if (!res.paging?.next || !after) break
      }
      return all as ReadonlyArray<ListedTemplate>
    })

  /**
   * Header media for a template: a resumable upload session on the app
   * (`POST /{app_id}/uploads`), then the bytes (`POST /{upload_id}` with
   * `Authorization: OAuth`), giving the handle for `example.header_handle`.
   */
  const uploadHeaderMedia = (
    creds: ChannelCredentials,
    file: { readonly data: Uint8Array; readonly mime_type: string; readonly filename: string }
  ) =>
    Effect.gen(function*() {
      yield* requireWaba(creds, "template header upload")
      if (file.data.length === 0) {
        return yield* Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "the header file is empty" }))
      }
      const session = yield* graph.call({
        operation: "templates.upload_session",
        method: "POST",
        path: `/${appId}/uploads`,
        query: { file_name: file.filename, file_length: file.data.length, file_type: file.mime_type },
        token: creds.access_token
      }, UploadSession)
      const handle = yield* graph.call({
        operation: "templates.upload_bytes",
        method: "POST",
        path: `/${session.id}`,
        token: creds.access_token,
        authScheme: "OAuth",
        headers: { file_offset: "0" },
        long: true,
        setBody: (r) => HttpClientRequest.bodyUint8Array(r, file.data, "application/octet-stream")
      }, UploadHandle)
      return { handle: handle.h }
    })

  return { createTemplate, editTemplate, deleteTemplate, listTemplates, uploadHeaderMedia }
}
