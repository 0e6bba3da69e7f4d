import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Chunk, Effect, Option, Schema, Stream } from "effect"
import { type GraphClient, requireChat, requireSocial, Success } from "./client.js"
import type { ChannelCredentials } from "./credentials.js"
import { UpstreamError, UpstreamRequestInvalid } from "./errors.js"

export interface MediaUploadInput {
  /** Whole file, or a stream of it (sent as a streamed multipart body). */
  readonly data: Uint8Array | Stream.Stream<Uint8Array, unknown>
  readonly mime_type: string
  readonly filename: string
  /** Byte length of a streamed file, when known (sets Content-Length). */
  readonly size?: number | undefined
}

export interface MediaInfo {
  readonly id: string
  readonly url: string
  readonly mime_type: string
  readonly file_size: number
  readonly sha256: string | null
}

export interface DownloadedMedia {
  readonly bytes: Uint8Array
  readonly mime_type: string
  readonly file_size: number
}

const StrOrNum = Schema.Union(Schema.String, Schema.Number)
const MediaInfoResponse = Schema.Struct({
  id: Schema.optional(Schema.String),
  url: Schema.String,
  mime_type: Schema.String,
  sha256: Schema.optional(Schema.String),
  file_size: Schema.optional(StrOrNum)
})
const UploadResponse = Schema.Struct({ id: Schema.String })
const AttachmentResponse = Schema.Struct({ attachment_id: Schema.String })

/** Hosts Meta serves media from; the channel token is only ever sent to these (or the configured Graph host). */
const META_MEDIA_HOSTS = ["fbsbx.com", "fbcdn.net", "facebook.com", "whatsapp.net", "cdninstagram.com"]

const encoder = new TextEncoder()

const multipartStream = (
  fields: ReadonlyArray<readonly [string, string]>,
  file: { readonly field: string; readonly filename: string; readonly mime_type: string; readonly size?: number | undefined },
  data: Stream.Stream<Uint8Array, unknown>
) => {
  const boundary = `----platform${crypto.randomUUID().replace(/-/g, "")}`
  const escape = (s: string) => s.replace(/["\r\n]/g, "_")
  const head = fields.map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${escape(name)}"\r\n\r\n${value}\r\n`
  ).join("") +
    `--${boundary}\r\nContent-Disposition: form-data; name="${escape(file.field)}"; filename="${escape(file.filename)}"\r\n` +
    `Content-Type: ${file.mime_type}\r\n\r\n`
  const tail = `\r\n--${boundary}--\r\n`
  const headBytes = encoder.encode(head)
  const tailBytes = encoder.encode(tail)
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: file.size !== undefined ? headBytes.length + file.size + tailBytes.length : undefined,
    body: Stream.make(headBytes).pipe(Stream.concat(data), Stream.concat(Stream.make(tailBytes)))
  }
}

const multipartBody = (
  fields: ReadonlyArray<readonly [string, string]>,
  field: string,
  input: MediaUploadInput
) =>
(request: HttpClientRequest.HttpClientRequest) => {
  if (input.data instanceof Uint8Array) {
    const form = new FormData()
    for (const [name, value] of fields) form.append(name, value)
    form.append(field, new Blob([input.data as Uint8Array<ArrayBuffer>], { type: input.mime_type }), input.filename)
    return HttpClientRequest.bodyFormData(request, form)
  }
  const mp = multipartStream(fields, { field, filename: input.filename, mime_type: input.mime_type, size: input.size }, input.data)
  return HttpClientRequest.bodyStream(request, mp.body, {
    contentType: mp.contentType,
    ...(mp.contentLength !== undefined ? { contentLength: mp.contentLength } : {})
  })
}

export const makeMediaApi = (graph: GraphClient) => {
  const graphHost = Option.liftThrowable(() => new URL(graph.baseUrl).host)()

  const checkMediaUrl = (url: string) => {
    const parsed = Option.liftThrowable(() => new URL(url))()
    const ok = Option.match(parsed, {
      onNone: () => false,
      onSome: (u) =>
        (Option.isSome(graphHost) && u.host === graphHost.value) ||
        (u.protocol === "https:" && META_MEDIA_HOSTS.some((h) => u.hostname === h || u.hostname.endsWith(`.${h}`)))
    })
    return ok
      ? Effect.void
      : Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: "the media URL is not an upstream media URL" }))
  }

  /**
   * Uploads a file and returns the upstream media id: WhatsApp `POST /{phone_number_id}/media`,
   * social channels the Attachment Upload API (`POST /{id}/message_attachments`, reusable).
   */
  const uploadMedia = (creds: ChannelCredentials, input: MediaUploadInput) =>
    Effect.gen(function*() {
      if (creds.kind === "chat") {
        const pnid = yield* requireChat(creds, "media upload")
        const res = yield* graph.call({
          operation: "media.upload",
          method: "POST",
          path: `/${pnid}/media`,
          token: creds.access_token,
          long: true,
          setBody: multipartBody([["messaging_product", "whatsapp"], ["type", input.mime_type]], "file", input)
        }, UploadResponse)
        return { media_id: res.id }
      }
      const socialId = yield* requireSocial(creds, "media upload")
      const type = input.mime_type.startsWith("image/")
        ? "image"
        : input.mime_type.startsWith("video/")
        ? "video"
        : input.mime_type.startsWith("audio/")
        ? "audio"
        : "file"
      const res = yield* graph.call({
        operation: "media.upload",
        method: "POST",
        path: `/${socialId}/message_attachments`,
        token: creds.access_token,
        long: true,
        setBody: multipartBody(
          [["message", JSON.stringify({ attachment: { type, payload: { is_reusable: true } } })]],
          "filedata",
          input
        )
      }, AttachmentResponse)
      return { media_id: res.attachment_id }
    })

  /** `GET /{media_id}`: the short-lived upstream URL (needs the token to fetch) and metadata. */
  const getMediaUrl = (creds: ChannelCredentials, mediaId: string) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "media URL lookup")
      const res = yield* graph.call({
        operation: "media.get",
        method: "GET",
        path: `/${encodeURIComponent(mediaId)}`,
        query: { phone_number_id: pnid },
        token: creds.access_token
      }, MediaInfoResponse)
      return {
        id: res.id ?? mediaId,
        url: res.url,
        mime_type: res.mime_type,
        file_size: Number(res.file_size ?? 0),
        sha256: res.sha256 ?? null
      } satisfies MediaInfo
    })

  /**
   * Opens the upstream media URL with the channel token for streaming to the
   * platform's own short-lived URL. The URL must be Meta's (or the configured
   * Graph host's), so the token is never sent anywhere else.
   */
  const openMedia = (creds: ChannelCredentials, url: string) =>
    Effect.gen(function*() {
      yield* checkMediaUrl(url)
      const res = yield* graph.open({ operation: "media.download", method: "GET", url, token: creds.access_token, long: true })
      const length = Number(res.headers["content-length"] ?? NaN)
      return {
        mime_type: res.headers["content-type"] ?? "application/octet-stream",
        content_length: Number.isFinite(length) ? length : null,
        stream: res.stream.pipe(
          Stream.mapError((e) =>
            new UpstreamError({
              kind: "network",
              operation: "media.download",
              meta_code: null,
              meta_subcode: null,
              meta_title: null,
              message: `Media download interrupted (${e.reason})`,
              details: null,
              fbtrace_id: null,
              http_status: null
            })
          )
        )
      }
    })

  /** Downloads the whole media file into memory. */
  const downloadMedia = (creds: ChannelCredentials, url: string) =>
    Effect.scoped(
      Effect.gen(function*() {
        const opened = yield* openMedia(creds, url)
        const chunks = yield* Stream.runCollect(opened.stream)
        const total = Chunk.reduce(chunks, 0, (n, c) => n + c.length)
        const bytes = new Uint8Array(total)
        let offset = 0
        for (const c of chunks) {
          bytes.set(c, offset)
          offset += c.length
        }
        return { bytes, mime_type: opened.mime_type, file_size: total } satisfies DownloadedMedia
      })
    )

  /** `DELETE /{media_id}`. */
  const deleteMedia = (creds: ChannelCredentials, mediaId: string) =>
    Effect.gen(function*() {
      const pnid = yield* requireChat(creds, "media delete")
      yield* graph.call({
        operation: "media.delete",
        method: "DELETE",
        path: `/${encodeURIComponent(mediaId)}`,
        query: { phone_number_id: pnid },
        token: creds.access_token
      }, Success)
      return { deleted: true as const }
    })

  return { uploadMedia, getMediaUrl, openMedia, downloadMedia, deleteMedia }
}

export type OpenedMedia = Effect.Effect.Success<ReturnType<ReturnType<typeof makeMediaApi>["openMedia"]>>
