import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"

/**
 * The largest request body of the API, multipart uploads aside (media have their
 * own limits per kind, up to 100 MB). SPEC leaves body sizes open; our biggest
 * JSON body (a broadcast's 1000 recipients) is far below this.
 */
export const JSON_BODY_MAX_BYTES = 1024 * 1024

/** The body of a 413 in DESIGN's coded shape, for a route whose limit is `maxBytes`. */
export const payloadTooLargeBody = (maxBytes: number) => ({
  detail: {
    code: "payload_too_large",
    message: `The request body is larger than ${maxBytes} bytes`,
    max_bytes: maxBytes
  }
})

/** 413 in DESIGN's coded shape. */
export const payloadTooLarge = HttpServerResponse.unsafeJson(payloadTooLargeBody(JSON_BODY_MAX_BYTES), { status: 413 })

/** A body read that stopped at the limit (the platform's reader says "maxBytes exceeded"). */
export const overLimit = (error: { readonly cause?: unknown }): boolean =>
  error.cause instanceof Error && error.cause.message === "maxBytes exceeded"

const limited = (request: HttpServerRequest.HttpServerRequest) =>
  request.url.startsWith("/platform/") && !/^multipart\/form-data\b/i.test(request.headers["content-type"] ?? "")

/**
 * Bounds the bodies of `/platform/*` requests: a declared Content-Length over the
 * limit is 413 before anything is read; a body that turns out longer stops being
 * read at the limit (validation.ts answers 413 where the connection still can).
 * Without it a 1 GB body to the login route was read into memory.
 */
export const BodyLimitMiddleware = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (!limited(request)) return app
    if (Number(request.headers["content-length"] ?? 0) > JSON_BODY_MAX_BYTES) return Effect.succeed(payloadTooLarge)
    return Effect.provideService(app, HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(JSON_BODY_MAX_BYTES)))
  })
)
