import { Schema } from "effect"
import { Id, NonEmptyString, requestBody } from "./common.js"
import { IntegerParam } from "./param.js"

/** POST /media result (SPEC §2.8). */
export const MediaUploadResult = Schema.Struct({ channel_id: Id, media_id: Schema.String }).annotations({
  identifier: "MediaUploadResult"
})
export type MediaUploadResult = typeof MediaUploadResult.Type

/** GET /media/{id}/url result: a short-lived URL; the channel token is never included. */
export const MediaUrlResult = Schema.Struct({
  channel_id: Id,
  url: Schema.String,
  mime_type: Schema.String,
  file_size: Schema.Int
}).annotations({ identifier: "MediaUrlResult" })
export type MediaUrlResult = typeof MediaUrlResult.Type

/** POST /media as JSON: fetch from a public URL (SSRF-checked by the server). */
export const MediaFromUrl = requestBody(
  Schema.Struct({ channel_id: Id, url: NonEmptyString, mime_type: NonEmptyString }),
  "MediaFromUrl"
)
export type MediaFromUrl = typeof MediaFromUrl.Type

/** Query of GET /media/{id}/url and DELETE /media/{id}. */
export const MediaChannelQuery = Schema.Struct({ channel_id: IntegerParam("The channel the media was uploaded on.") })
export type MediaChannelQuery = typeof MediaChannelQuery.Type

/** DELETE /media/{id} result (DESIGN §5). */
export const MediaDeleteResult = Schema.Struct({ deleted: Schema.Literal(true) }).annotations({
  identifier: "MediaDeleteResult"
})
export type MediaDeleteResult = typeof MediaDeleteResult.Type
