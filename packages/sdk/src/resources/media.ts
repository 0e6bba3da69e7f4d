import { MediaFileError, PlatformError } from "../core/errors.js"
import type { RequestOptions } from "../core/request.js"
import { APIResource, knownParams, seg } from "../resource.js"
import type { MediaDeleteResult, MediaFromUrlParams, MediaUploadResult, MediaUrlResult } from "../types.js"

/** What `media.upload` accepts as the file: a path (Node, Bun, Deno), a Blob/File, bytes, or a byte stream. */
export type Uploadable = string | Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>

/** Upload of a file to a channel. */
export interface MediaUploadFileParams {
  /** The channel the media belongs to. */
  readonly channel_id: number
  /** The file: a path, Blob/File, bytes or a stream. */
  readonly file: Uploadable
  /** File name sent with the upload (default: the path's base name, the File's name, or `upload`). */
  readonly filename?: string
  /** MIME type (default: the Blob's type; required for bytes and streams unless the server can sniff it). */
  readonly mime_type?: string
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  "3gp": "video/3gpp",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  opus: "audio/ogg",
  aac: "audio/aac",
  m4a: "audio/mp4",
  amr: "audio/amr",
  pdf: "application/pdf",
  txt: "text/plain",
  csv: "text/csv",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation"
}

/** Guesses a MIME type from a file name's extension. */
export const mimeFromName = (name: string): string | undefined => MIME_BY_EXTENSION[name.toLowerCase().split(".").pop() ?? ""]

const collect = async (stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Uint8Array[]> => {
  const chunks: Uint8Array[] = []
  if (Symbol.asyncIterator in stream) {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) chunks.push(chunk)
    return chunks
  }
  const reader = (stream as ReadableStream<Uint8Array>).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return chunks
    chunks.push(value)
  }
}

const FILE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  ENOTDIR: "no such file",
  EACCES: "permission denied",
  EPERM: "permission denied"
}

/** Opens a path as a Blob, checking first that it is a readable file (a Blob of a directory only fails once the upload is sent). */
const openPath = async (file: string, type: string): Promise<Blob> => {
  // Node-only modules are loaded on demand so the core stays runtime-neutral.
  const fs = await import("node:fs")
  try {
    const handle = await fs.promises.open(file, "r")
    const stats = await handle.stat().finally(() => handle.close())
    if (stats.isDirectory()) throw new MediaFileError(file, "it is a directory, not a file")
    if (!stats.isFile()) throw new MediaFileError(file, "it is not a regular file")
  } catch (error) {
    if (error instanceof MediaFileError) throw error
    const code = (error as NodeJS.ErrnoException).code ?? ""
    const reason = FILE_ERRORS[code] ?? (error as Error).message
    throw new MediaFileError(file, code === "" || reason.includes(code) ? reason : `${reason} (${code})`, { cause: error })
  }
  return typeof fs.openAsBlob === "function" ? fs.openAsBlob(file, { type }) : new Blob([await fs.promises.readFile(file)], { type })
}

export const toBlob = async (file: Uploadable, mime: string | undefined): Promise<{ blob: Blob; name: string | undefined }> => {
  if (typeof file === "string") {
    const path = await import("node:path")
    const name = path.basename(file)
    return { blob: await openPath(file, mime ?? mimeFromName(name) ?? ""), name }
  }
  if (file instanceof Blob) {
    const name = (file as { name?: unknown }).name
    const blob = mime !== undefined && file.type !== mime ? new Blob([file], { type: mime }) : file
    return { blob, name: typeof name === "string" && name !== "" ? name : undefined }
  }
  if (file instanceof Uint8Array || file instanceof ArrayBuffer) return { blob: new Blob([file as BlobPart], { type: mime ?? "" }), name: undefined }
  if (typeof file === "object" && file !== null) return { blob: new Blob((await collect(file)) as BlobPart[], { type: mime ?? "" }), name: undefined }
  throw new PlatformError("media.upload: `file` must be a path, a Blob/File, bytes or a byte stream")
}

/** Uploads media, reads short-lived media URLs and deletes media (`/platform/v1/media`). */
export class Media extends APIResource {
  /** Uploads a file (multipart) or fetches one from a public URL (`{channel_id, url, mime_type}`) and returns its `media_id`. */
  async upload(params: MediaUploadFileParams | MediaFromUrlParams, options?: RequestOptions): Promise<MediaUploadResult> {
    if ("url" in params) {
      return this._client.request({ method: "POST", path: "/platform/v1/media", body: params }, options)
    }
    const { blob, name } = await toBlob(params.file, params.mime_type)
    const form = new FormData()
    form.set("channel_id", String(params.channel_id))
    form.set("file", blob, params.filename ?? name ?? "upload")
    return this._client.request({ method: "POST", path: "/platform/v1/media", body: form }, options)
  }

  /** Returns a short-lived URL for a media id, usable without any token. */
  getUrl(mediaId: string, params: { readonly channel_id: number }, options?: RequestOptions): Promise<MediaUrlResult> {
    return this._client.request(
      { method: "GET", path: `/platform/v1/media/${seg(mediaId)}/url`, query: knownParams("media.getUrl", params, ["channel_id"]) },
      options
    )
  }

  /** Deletes the media from the upstream. */
  delete(mediaId: string, params: { readonly channel_id: number }, options?: RequestOptions): Promise<MediaDeleteResult> {
    return this._client.request(
      { method: "DELETE", path: `/platform/v1/media/${seg(mediaId)}`, query: knownParams("media.delete", params, ["channel_id"]) },
      options
    )
  }
}
