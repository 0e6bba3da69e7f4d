import type { RequestOptions } from "../core/request.js"
import { APIResource, knownParams, seg } from "../resource.js"
import type {
  HeaderMediaResult,
  Template,
  TemplateCreateParams,
  TemplateListParams,
  TemplateSyncResult,
  TemplateUpdateParams
} from "../types.js"
import { toBlob, type Uploadable } from "./media.js"

const base = "/platform/v1/templates"
const LIST_PARAMS = ["channel_id", "name", "language_code", "category", "status", "is_active"] as const satisfies ReadonlyArray<
  keyof TemplateListParams
>

/** Upload of a header sample for a template's IMAGE, VIDEO or DOCUMENT header. */
export interface HeaderMediaUploadParams {
  /** The chat channel whose business account the template belongs to. */
  readonly channel_id: number
  /** The file: a path, Blob/File, bytes or a stream (JPEG/PNG up to 5 MB, MP4 16 MB, PDF 100 MB). */
  readonly file: Uploadable
  /** File name sent with the upload (default: the path's base name, the File's name, or `upload`). */
  readonly filename?: string
  /** MIME type (default: the Blob's type or the path's extension). */
  readonly mime_type?: string
}

/** Message templates of chat channels (`/platform/v1/templates`; needs manage:templates). */
export class Templates extends APIResource {
  /** Creates a template and submits it upstream; `meta_status` is the upstream's first answer (usually `pending`). */
  create(body: TemplateCreateParams, options?: RequestOptions): Promise<Template> {
    return this._client.request({ method: "POST", path: base, body }, options)
  }

  /** Lists the account's templates, newest first (a plain array), filtered by any of the given fields. */
  list(params: TemplateListParams = {}, options?: RequestOptions): Promise<ReadonlyArray<Template>> {
    return this._client.request({ method: "GET", path: base, query: knownParams("templates.list", params, LIST_PARAMS) }, options)
  }

  /** Retrieves a template by id. */
  retrieve(id: number, options?: RequestOptions): Promise<Template> {
    return this._client.request({ method: "GET", path: `${base}/${seg(id)}` }, options)
  }

  /** Edits the given fields and re-submits the template; a refusal upstream comes back as `meta_status: "rejected"`. */
  update(id: number, body: TemplateUpdateParams, options?: RequestOptions): Promise<Template> {
    return this._client.request({ method: "PATCH", path: `${base}/${seg(id)}`, body }, options)
  }

  /** Deletes a template here and upstream. */
  async delete(id: number, options?: RequestOptions): Promise<void> {
    await this._client.request({ method: "DELETE", path: `${base}/${seg(id)}` }, options)
  }

  /** Imports the channel's templates from the upstream (idempotent) and returns the counts. */
  sync(body: { readonly channel_id: number }, options?: RequestOptions): Promise<TemplateSyncResult> {
    return this._client.request({ method: "POST", path: `${base}/sync`, body, idempotent: true }, options)
  }

  /** Uploads a header sample and returns the `handle` to put in a HEADER's `example.header_handle`. */
  async uploadHeaderMedia(params: HeaderMediaUploadParams, options?: RequestOptions): Promise<HeaderMediaResult> {
    const { blob, name } = await toBlob(params.file, params.mime_type)
    const form = new FormData()
    form.set("channel_id", String(params.channel_id))
    form.set("file", blob, params.filename ?? name ?? "upload")
    return this._client.request({ method: "POST", path: `${base}/header-media`, body: form }, options)
  }
}
