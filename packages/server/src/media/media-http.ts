import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CurrentPrincipal, MediaFromUrl, PlatformApi, ValidationFailed } from "@platform/shared"
import { Effect, Schema } from "effect"
import { formParts, isMultipart } from "../http/file-form.js"
import { Media } from "./media.js"

const decodeFromUrl = Schema.decodeUnknown(MediaFromUrl)

export const MediaLive = HttpApiBuilder.group(PlatformApi, "media", (handlers) =>
  Effect.gen(function*() {
    const media = yield* Media
    return handlers
      // Raw: the body is either a JSON object or a multipart stream, told apart by Content-Type.
      .handleRaw("upload", ({ request }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          if (isMultipart(request)) {
            // A refusal can come before the file was read to its end: close the connection
            // so the unread rest of the body is never taken for the next request on it.
            yield* HttpApp.appendPreResponseHandler((_request, response) =>
              Effect.succeed(response.status >= 400 ? HttpServerResponse.setHeader(response, "connection", "close") : response)
            )
            const parts = yield* formParts(request)
            const query = new URL(request.url, "http://localhost").searchParams
            const length = Number(request.headers["content-length"])
            return yield* media.uploadMultipart(
              principal.account_id,
              parts,
              query.get("channel_id") ?? undefined,
              Number.isFinite(length) ? length : undefined
            )
          }
          const json = yield* request.json.pipe(
            Effect.mapError(() =>
              new ValidationFailed({
                detail: [{
                  loc: ["body"],
                  msg: "send application/json {channel_id, url, mime_type} or multipart/form-data with channel_id and file",
                  type: "json_invalid",
                  input: null,
                  ctx: {}
                }]
              })
            )
          )
          const input = yield* decodeFromUrl(json).pipe(
            Effect.mapError((e) => ValidationFailed.fromParseError(e, "body", json))
          )
          return yield* media.uploadFromUrl(principal.account_id, input)
        }))
      .handle("url", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => media.url(p.account_id, path.media_id, urlParams.channel_id)))
      .handle("delete", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => media.delete(p.account_id, path.media_id, urlParams.channel_id)))
  }))

const errorBody = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

/**
 * `GET /platform/v1/media-downloads/:token`: the short-lived link handed out by
 * GET /media/{id}/url. It needs no key (the HMAC-signed token is the credential),
 * so it lives beside the contract rather than in it, like /webhook/incoming.
 */
export const MediaDownloadRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const media = yield* Media
    yield* router.get(
      "/platform/v1/media-downloads/:token",
      Effect.gen(function*() {
        const params = yield* HttpRouter.params
        const file = yield* media.download(params["token"] ?? "")
        return HttpServerResponse.stream(file.stream, {
          contentType: file.mime_type,
          ...(file.content_length !== null ? { contentLength: file.content_length } : {}),
          headers: { "cache-control": "private, no-store", "x-content-type-options": "nosniff", ...file.headers }
        })
      }).pipe(
        Effect.catchTags({
          NotFound: (e) => Effect.succeed(errorBody(404, { detail: { code: "not_found", message: e.message } })),
          ChatOnly: (e) => Effect.succeed(errorBody(400, { detail: { code: "chat_only", message: e.message } })),
          ChannelUnusable: (e) => Effect.succeed(errorBody(422, { detail: { code: "channel_unusable", message: e.message } })),
          ValidationFailed: (e) => Effect.succeed(errorBody(422, { detail: e.detail })),
          SendUpstreamError: ({ _tag: _, ...envelope }) => Effect.succeed(errorBody(502, envelope))
        })
      )
    )
  })
)
