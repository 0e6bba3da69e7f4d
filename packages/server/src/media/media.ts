import * as Multipart from "@effect/platform/Multipart"
import { SqlClient } from "@effect/sql"
import {
  ChatOnly,
  type MediaDeleteResult,
  type MediaFromUrl,
  type MediaUploadResult,
  type MediaUrlResult,
  NotFound,
  SendUpstreamError,
  ValidationFailed
} from "@platform/shared"
import { Data, Effect, Exit, Option, Scope, Stream } from "effect"
import { AppConfig } from "../config.js"
import { Secrets } from "../crypto/secrets.js"
import { DnsResolver } from "../net/dns-resolver.js"
import { safeDownload } from "../net/safe-download.js"
import type { SafeDownloadError } from "../net/safe-http-errors.js"
import { toSendErrorBody, type UpstreamCallError, type UpstreamRequestInvalid } from "../upstream/errors.js"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache, type UsableChannel } from "../channels/channel-credentials.js"
import { bodyIssue, channelFileForm, unreadableForm } from "../http/file-form.js"

const KB = 1024
const MB = 1024 * 1024

export type MediaKind = "image" | "sticker" | "video" | "audio" | "document"

interface KindRule {
  readonly kind: MediaKind
  readonly maxBytes: number
  readonly mimeTypes: ReadonlyArray<string>
}

/** What each upstream accepts per kind: MIME types and size caps. */
export const MEDIA_KINDS: { readonly [K in UsableChannel["type"]]: ReadonlyArray<KindRule> } = {
  // WhatsApp Cloud API "Supported media types".
  chat: [
    { kind: "image", maxBytes: 5 * MB, mimeTypes: ["image/jpeg", "image/png"] },
    { kind: "sticker", maxBytes: 500 * KB, mimeTypes: ["image/webp"] },
    { kind: "video", maxBytes: 16 * MB, mimeTypes: ["video/mp4", "video/3gpp"] },
    { kind: "audio", maxBytes: 16 * MB, mimeTypes: ["audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"] },
    {
      kind: "document",
      maxBytes: 100 * MB,
      mimeTypes: [
        "text/plain",
        "application/pdf",
        "application/msword",
        "application/vnd.ms-excel",
        "application/vnd.ms-powerpoint",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation"
      ]
    }
  ],
  // Instagram messaging's Attachment Upload API: image png, jpeg, gif 8 MB; video mp4, ogg, avi,
  // mov, webm, audio aac, m4a, wav, mp4 and file pdf 25 MB.
  social: [
    { kind: "image", maxBytes: 8 * MB, mimeTypes: ["image/jpeg", "image/png", "image/gif"] },
    { kind: "video", maxBytes: 25 * MB, mimeTypes: ["video/mp4", "video/ogg", "video/x-msvideo", "video/quicktime", "video/webm"] },
    { kind: "audio", maxBytes: 25 * MB, mimeTypes: ["audio/aac", "audio/mp4", "audio/x-m4a", "audio/wav", "audio/x-wav"] },
    { kind: "document", maxBytes: 25 * MB, mimeTypes: ["application/pdf"] }
  ]
}

export const baseMime = (mime: string) => mime.split(";")[0]!.trim().toLowerCase()

export const mediaKindOf = (channel: UsableChannel["type"], mime: string) =>
  MEDIA_KINDS[channel].find((k) => k.mimeTypes.includes(baseMime(mime)))

const supported = (channel: UsableChannel["type"]) => MEDIA_KINDS[channel].flatMap((k) => k.mimeTypes).join(", ")

const ascii = (bytes: Uint8Array, from: number, text: string) =>
  text.split("").every((c, i) => bytes[from + i] === c.charCodeAt(0))

/*
 * Content signatures, so a file's bytes must be what its MIME type claims (the
 * upstream rejects a mismatch only later, when the message is delivered).
 */
const SIGNATURES: Readonly<Record<string, (b: Uint8Array) => boolean>> = {
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/png": (b) => ascii(b, 1, "PNG") && b[0] === 0x89,
  "image/webp": (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP"),
  "image/gif": (b) => ascii(b, 0, "GIF8"),
  "video/ogg": (b) => ascii(b, 0, "OggS"),
  "video/webm": (b) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3,
  "video/x-msvideo": (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "AVI "),
  "video/quicktime": (b) => ["ftyp", "moov", "mdat", "wide", "free", "skip"].some((atom) => ascii(b, 4, atom)),
  "audio/x-m4a": (b) => ascii(b, 4, "ftyp"),
  "audio/wav": (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE"),
  "audio/x-wav": (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE"),
  "video/mp4": (b) => ascii(b, 4, "ftyp"),
  "video/3gpp": (b) => ascii(b, 4, "ftyp"),
  "audio/mp4": (b) => ascii(b, 4, "ftyp"),
  "audio/ogg": (b) => ascii(b, 0, "OggS"),
  "audio/amr": (b) => ascii(b, 0, "#!AMR"),
  "audio/mpeg": (b) => ascii(b, 0, "ID3") || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0),
  "audio/aac": (b) => ascii(b, 0, "ADIF") || (b[0] === 0xff && ((b[1] ?? 0) & 0xf6) === 0xf0),
  "application/pdf": (b) => ascii(b, 0, "%PDF"),
  "application/msword": (b) => b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0,
  "application/vnd.ms-excel": (b) => b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0,
  "application/vnd.ms-powerpoint": (b) => b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0,
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": (b) => ascii(b, 0, "PK\u0003\u0004"),
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": (b) => ascii(b, 0, "PK\u0003\u0004"),
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": (b) => ascii(b, 0, "PK\u0003\u0004"),
  "text/plain": (b) => !b.includes(0)
}

/** Whether the first bytes of a file fit its declared MIME type. */
export const contentMatches = (mime: string, head: Uint8Array) => SIGNATURES[baseMime(mime)]?.(head) ?? true

/*
 * A download link serves bytes someone else chose (an inbound document can be any
 * type, HTML and SVG included) from this service's origin, where the dashboard's
 * cookie lives: rendered inline, a script in them would run as the dashboard. So
 * only raster images, audio and video are shown inline; everything else is an
 * attachment, and every download carries a CSP that sandboxes whatever renders.
 */
const INLINE_MEDIA = /^(image\/(jpeg|png|webp|gif)|audio\/[\w.+-]+|video\/[\w.+-]+)$/

/** Headers a download link answers with beside its content type (see INLINE_MEDIA). */
export const downloadHeaders = (mime: string, mediaId: string): Record<string, string> => ({
  "content-security-policy": "default-src 'none'; sandbox",
  "content-disposition": INLINE_MEDIA.test(baseMime(mime))
    ? "inline"
    : `attachment; filename="${mediaId.replace(/[^\w.-]/g, "_")}"`
})

/** Lifetime of a platform media URL. */
export const MEDIA_URL_TTL_SECONDS = 300

class UploadRefused extends Data.TaggedError("UploadRefused")<{ readonly error: ValidationFailed }> {}

const issue = bodyIssue

const sizeText = (bytes: number) => (bytes >= MB ? `${bytes / MB} MB` : `${bytes / KB} KB`)

const upstreamFailed = (e: UpstreamCallError | UpstreamRequestInvalid) =>
  e._tag === "UpstreamRequestInvalid"
    ? e.code === "chat_only" ? new ChatOnly({ message: e.message }) : issue([], e.message, null)
    : new SendUpstreamError(toSendErrorBody(e))

/*
 * Graph's "Object with ID ... does not exist, cannot be loaded due to missing
 * permissions" (code 100, subcode 33): the upstream does not know this media id
 * for the channel (never uploaded, deleted, expired after 30 days, another
 * number's). That is a missing resource (404), not an upstream failure (502).
 */
const mediaFailed = (mediaId: string) => (e: UpstreamCallError | UpstreamRequestInvalid) =>
  e._tag === "UpstreamError" && e.meta_code === 100 && e.meta_subcode === 33
    ? new NotFound({ message: `media ${mediaId} not found on this channel (deleted, expired or never uploaded)` })
    : upstreamFailed(e)

/** A URL's last path segment, percent-decoded unless its escapes are malformed (`%E0%A4%A` stays as written). */
const filenameOf = (url: string) => {
  const segment = new URL(url).pathname.split("/").pop() ?? ""
  try {
    return decodeURIComponent(segment) || "file"
  } catch {
    return segment || "file"
  }
}

const downloadRefusal = (url: string, e: SafeDownloadError, cap: number) => {
  switch (e._tag) {
    case "SsrfRejected":
      return issue(["url"], e.reason, url, { kind: e.kind })
    case "SafeDownloadRefused":
      return issue(
        ["url"],
        e.kind === "too_large" ? `the file at url exceeds the ${sizeText(cap)} cap for this mime_type` : e.reason,
        url,
        { kind: e.kind }
      )
    default:
      return issue(["url"], `the file at url could not be downloaded: ${e.reason}`, url, { kind: "download_failed" })
  }
}

/**
 * POST/GET/DELETE /media (SPEC §4.3). Files stream through to the upstream (nothing
 * is stored but metadata); URL sources pass the SSRF guard before any fetch; the
 * short-lived URL is the platform's own, HMAC-signed with an expiry, and streams
 * the bytes from the upstream with the channel token, which never leaves here.
 */
export class Media extends Effect.Service<Media>()("@platform/server/Media", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const secrets = yield* Secrets
    const channels = yield* ChannelCredentialsCache
    const upstream = yield* Upstream
    const resolver = yield* Effect.serviceOption(DnsResolver)

    const remember = (channel: UsableChannel, mediaId: string, mime: string, size: number, filename: string | null) =>
      sql`
        insert into media (developer_account_id, platform_channel_id, media_id, mime_type, file_size, filename)
        values (${channel.account_id}, ${channel.id}, ${mediaId}, ${mime}, ${size}, ${filename})
        on conflict (platform_channel_id, media_id) do nothing`.pipe(Effect.orDie, Effect.asVoid)

    /**
     * multipart/form-data: `channel_id` (a field before `file`, or the query) then
     * `file`, whose bytes go to the upstream as they arrive: the size cap and the
     * content signature are enforced on the way, aborting the upload.
     */
    const uploadMultipart = Effect.fn("Media.uploadMultipart")(function*(
      accountId: number,
      parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
      channelIdFromQuery: string | undefined,
      declaredLength: number | undefined
    ) {
      if (declaredLength !== undefined && declaredLength > 100 * MB + 64 * KB) {
        return yield* issue(["file"], "the request exceeds the largest media cap (100 MB for documents)", null, { max_bytes: 100 * MB })
      }
      return yield* channelFileForm(parts, channelIdFromQuery, (channelId, part) =>
        Effect.flatMap(channels.get(accountId, channelId), (channel) => streamFile(channel, part)))
    })

    const streamFile = (channel: UsableChannel, part: Multipart.File) =>
      Effect.gen(function*() {
        const mime = baseMime(part.contentType)
        const kind = mediaKindOf(channel.type, mime)
        if (kind === undefined) {
          return yield* issue(["file"], `unsupported media type ${mime || "(none)"}; supported on ${channel.type} channels: ${supported(channel.type)}`, part.name, { mime_type: mime })
        }
        let total = 0
        let refused: ValidationFailed | undefined
        const guarded = part.content.pipe(
          Stream.mapError((e) => new UploadRefused({ error: unreadableForm(e) })),
          Stream.mapEffect((bytes) => {
            if (total === 0 && bytes.length > 0 && !contentMatches(mime, bytes)) {
              refused = issue(["file"], `the file's content is not ${mime}`, part.name, { mime_type: mime })
            } else if (total + bytes.length > kind.maxBytes) {
              refused = issue(["file"], `${kind.kind} files are at most ${sizeText(kind.maxBytes)}`, part.name, { max_bytes: kind.maxBytes })
            }
            total += bytes.length
            return refused === undefined ? Effect.succeed(bytes) : Effect.fail(new UploadRefused({ error: refused }))
          })
        )
        const result = yield* upstream.uploadMedia(channel.creds, { data: guarded, mime_type: mime, filename: part.name || "file" }).pipe(
          Effect.mapError((e) => refused ?? upstreamFailed(e))
        )
        if (refused !== undefined) return yield* refused
        if (total === 0) return yield* issue(["file"], "the file is empty", part.name)
        yield* remember(channel, result.media_id, mime, total, part.name || null)
        return { channel_id: channel.id, media_id: result.media_id } satisfies MediaUploadResult
      })

    /** application/json `{channel_id, url, mime_type}`: the SSRF guard runs before any fetch. */
    const uploadFromUrl = Effect.fn("Media.uploadFromUrl")(function*(accountId: number, input: MediaFromUrl) {
      const channel = yield* channels.get(accountId, input.channel_id)
      const mime = baseMime(input.mime_type)
      const kind = mediaKindOf(channel.type, mime)
      if (kind === undefined) {
        return yield* issue(["mime_type"], `unsupported media type ${mime}; supported on ${channel.type} channels: ${supported(channel.type)}`, input.mime_type)
      }
      const downloaded = yield* safeDownload(input.url, {
        allowLocal: config.unsafeAllowLocalTargets,
        maxBytes: kind.maxBytes,
        timeoutMs: 30_000,
        ...(Option.isSome(resolver) ? { resolver: resolver.value } : {})
      }).pipe(Effect.mapError((e) => downloadRefusal(input.url, e, kind.maxBytes)))
      if (downloaded.bytes.length === 0) return yield* issue(["url"], "the file at url is empty", input.url)
      if (!contentMatches(mime, downloaded.bytes)) {
        return yield* issue(["mime_type"], `the file at url is not ${mime}`, input.mime_type, { mime_type: mime })
      }
      const filename = filenameOf(input.url)
      const result = yield* upstream.uploadMedia(channel.creds, { data: downloaded.bytes, mime_type: mime, filename }).pipe(
        Effect.mapError(upstreamFailed)
      )
      yield* remember(channel, result.media_id, mime, downloaded.bytes.length, filename)
      return { channel_id: channel.id, media_id: result.media_id } satisfies MediaUploadResult
    })

    const sign = (payload: string) => secrets.sign(`media-download|${payload}`)

    /** `<account>.<channel>.<expiry>.<media id, base64url>.<HMAC>`: everything the download needs, tamper-proof. */
    const tokenFor = (channel: UsableChannel, mediaId: string, expires: number) => {
      const payload = `${channel.account_id}.${channel.id}.${expires}.${Buffer.from(mediaId).toString("base64url")}`
      return `${payload}.${sign(payload)}`
    }

    const url = Effect.fn("Media.url")(function*(accountId: number, mediaId: string, channelId: number) {
      const channel = yield* channels.get(accountId, channelId)
      const info = yield* upstream.getMediaUrl(channel.creds, mediaId).pipe(Effect.mapError(mediaFailed(mediaId)))
      const expires = Math.floor(Date.now() / 1000) + MEDIA_URL_TTL_SECONDS
      return {
        channel_id: channel.id,
        url: `${config.publicUrl}/platform/v1/media-downloads/${tokenFor(channel, mediaId, expires)}`,
        mime_type: info.mime_type,
        file_size: info.file_size
      } satisfies MediaUrlResult
    })

    const expired = () => new NotFound({ message: "this media link is invalid or has expired; ask GET /platform/v1/media/{media_id}/url for a new one" })

    /**
     * The bytes behind a signed link: headers once the upstream answered, then the
     * body streamed through. The upstream response stays open until the stream ends.
     */
    const download = Effect.fn("Media.download")(function*(token: string) {
      const parts = token.split(".")
      if (parts.length !== 5) return yield* expired()
      const [account, channelId, expires, encodedId, signature] = parts as [string, string, string, string, string]
      if (!secrets.verify(`media-download|${account}.${channelId}.${expires}.${encodedId}`, signature)) {
        return yield* expired()
      }
      if (!(Number(expires) * 1000 > Date.now())) return yield* expired()
      const channel = yield* channels.get(Number(account), Number(channelId)).pipe(
        Effect.catchTag("NotFound", () => Effect.fail(expired()))
      )
      const mediaId = Buffer.from(encodedId, "base64url").toString()
      const info = yield* upstream.getMediaUrl(channel.creds, mediaId).pipe(Effect.mapError(mediaFailed(mediaId)))
      const scope = yield* Scope.make()
      const opened = yield* upstream.openMedia(channel.creds, info.url).pipe(
        Scope.extend(scope),
        Effect.mapError(upstreamFailed),
        Effect.onError(() => Scope.close(scope, Exit.void))
      )
      const mime = opened.mime_type || info.mime_type
      return {
        mime_type: mime,
        headers: downloadHeaders(mime, mediaId),
        content_length: opened.content_length ?? (info.file_size > 0 ? info.file_size : null),
        stream: opened.stream.pipe(Stream.ensuring(Scope.close(scope, Exit.void)))
      }
    })

    const remove = Effect.fn("Media.delete")(function*(accountId: number, mediaId: string, channelId: number) {
      const channel = yield* channels.get(accountId, channelId)
      yield* upstream.deleteMedia(channel.creds, mediaId).pipe(Effect.mapError(mediaFailed(mediaId)))
      yield* sql`update media set deleted_at = now() where platform_channel_id = ${channel.id} and media_id = ${mediaId}`.pipe(
        Effect.orDie
      )
      return { deleted: true } satisfies MediaDeleteResult
    })

    return { uploadMultipart, uploadFromUrl, url, download, delete: remove } as const
  }),
  dependencies: [ChannelCredentialsCache.Default, Secrets.Default]
}) {}
