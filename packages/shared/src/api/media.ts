import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import { queryParams } from "../common.js"
import { Schema } from "effect"
import { ChannelUnusable, ChatOnly, NotFound, SendUpstreamError, ValidationFailed, wire } from "../errors.js"
import { MediaChannelQuery, MediaDeleteResult, MediaFromUrl, MediaUploadResult, MediaUrlResult } from "../media.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

/** Multipart form of POST /media: `channel_id` first, then `file` (streamed to the upstream). */
export const MediaUploadForm = HttpApiSchema.MultipartStream(
  Schema.Struct({ channel_id: Schema.String, file: Multipart.SingleFileSchema })
)

export const MediaIdPath = Schema.Struct({ media_id: Schema.String.pipe(Schema.minLength(1)) })

/** `/platform/v1/media`: upload (file or URL), short-lived URL, delete (upload:media, key only). */
export class MediaGroup extends HttpApiGroup.make("media")
  .add(
    HttpApiEndpoint.post("upload", "/platform/v1/media")
      .setPayload(Schema.Union(MediaFromUrl, MediaUploadForm))
      .addSuccess(MediaUploadResult)
      .addError(wire(NotFound))
      .addError(wire(ChatOnly))
      .addError(wire(ChannelUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(SendUpstreamError))
      .annotate(OpenApi.Summary, "Upload media from a file (multipart) or a public URL (JSON)")
      .annotate(
        OpenApi.Description,
        "multipart/form-data: `channel_id` (before `file`) and `file`, streamed to the upstream; caps on chat channels: " +
          "image 5 MB, video and audio 16 MB, document 100 MB, sticker (image/webp) 500 KB; on social channels: image " +
          "(jpeg, png, gif) 8 MB, video, audio and document (pdf only) 25 MB; the MIME type must be one the channel's " +
          "upstream accepts and match the content. application/json: `{channel_id, url, mime_type}`; the URL passes the SSRF " +
          "guard before any fetch and the download is capped the same way. The service stores no binaries."
      )
  )
  .add(
    HttpApiEndpoint.get("url", "/platform/v1/media/:media_id/url")
      .setPath(MediaIdPath)
      .setUrlParams(queryParams(MediaChannelQuery))
      .addSuccess(MediaUrlResult)
      .addError(wire(NotFound))
      .addError(wire(ChatOnly))
      .addError(wire(ChannelUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(SendUpstreamError))
      .annotate(OpenApi.Summary, "A short-lived URL of the media that works without any key (5 minutes)")
  )
  .add(
    HttpApiEndpoint.del("delete", "/platform/v1/media/:media_id")
      .setPath(MediaIdPath)
      .setUrlParams(queryParams(MediaChannelQuery))
      .addSuccess(MediaDeleteResult)
      .addError(wire(NotFound))
      .addError(wire(ChatOnly))
      .addError(wire(ChannelUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(SendUpstreamError))
      .annotate(OpenApi.Summary, "Delete the media at the upstream")
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "upload:media")
  .annotate(CookieAllowed, false)
  .annotate(OpenApi.Title, "Media")
  .annotate(OpenApi.Description, "Upload media for messages, look up short-lived download links and delete media.")
{}
