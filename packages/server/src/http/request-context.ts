import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, LogLevel } from "effect"
import { randomUUID } from "node:crypto"
import { responseHeaders } from "./response-headers.js"

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/

let inFlight = 0

/** How many requests are being handled right now (graceful shutdown waits for 0). */
export const requestsInFlight = () => inFlight

const requestIdOf = (request: HttpServerRequest.HttpServerRequest) => {
  const given = request.headers["x-request-id"]
  return given !== undefined && VALID_ID.test(given) ? given : `req_${randomUUID().replace(/-/g, "")}`
}

const accessLog = (request: HttpServerRequest.HttpServerRequest, requestId: string, status: number, started: number) =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      request_id: requestId,
      method: request.method,
      path: request.url.split("?")[0],
      status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10
    })
  )

const decrement = Effect.sync(() => {
  inFlight--
})

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane),
 * echoes it, logs one access line, and turns a defect into a 500 that names
 * the request id and nothing of the internals. It runs inside the API, before
 * the response is written, so typed errors still reach their encoders. Its one
 * pre-response handler also applies the headers other middleware added for the
 * request (X-RateLimit-*). The access line is built only when Info is logged.
 */
export const RequestContextMiddleware = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = requestIdOf(request)
    const started = performance.now()
    inFlight++
    const headers = responseHeaders(request)
    headers["x-request-id"] = requestId
    return Effect.zipRight(
      HttpApp.appendPreResponseHandler((_request, response) => {
        const headed = HttpServerResponse.setHeaders(response, headers)
        return Effect.as(
          Effect.whenLogLevel(Effect.suspend(() => accessLog(request, requestId, response.status, started)), LogLevel.Info),
          headed
        )
      }),
      app.pipe(
        Effect.catchAllDefect((defect) =>
          Effect.as(
            Effect.logError("request failed", Cause.pretty(Cause.die(defect))),
            HttpServerResponse.unsafeJson(
              { detail: { code: "internal_error", message: "Internal server error", request_id: requestId } },
              { status: 500 }
            )
          )
        ),
        Effect.annotateLogs("request_id", requestId),
        Effect.ensuring(decrement)
      )
    )
  })
)
