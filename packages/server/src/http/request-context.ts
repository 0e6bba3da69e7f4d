import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, LogLevel } from "effect"
import { randomUUID } from "node:crypto"
import { observeRequest } from "../telemetry/http-requests.js"
import { defectAnswer } from "./defect-answer.js"
import { requestsSettled } from "./lost-requests.js"
import { responseHeaders } from "./response-headers.js"

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/

let inFlight = 0

/** How many requests are being handled right now (graceful shutdown waits for 0). */
export const requestsInFlight = () => inFlight

/** A request has started / finished (plain node routes count themselves too). */
export const requestStarted = () => {
  inFlight++
}
export const requestFinished = () => {
  inFlight--
}

/** The caller's `X-Request-Id` when it is sane, otherwise a new one. */
export const requestIdOf = (given: string | undefined) =>
  given !== undefined && VALID_ID.test(given) ? given : `req_${randomUUID().replace(/-/g, "")}`

/**
 * Whether a request is the sandbox's own traffic: its Graph API, called by this server over
 * HTTP (mounted only with UPSTREAM=sandbox). Its access lines are Debug, so a terminal shows
 * the developer's requests, not the three or four internal calls each of them makes.
 */
export const isSandboxTraffic = (url: string) => url.startsWith("/__sandbox/")

/** The access line of one response, built only when its level (Info, or Debug for the sandbox's own traffic) is logged. */
export const accessLog = (method: string, url: string, requestId: string, status: number, started: number, level: LogLevel.LogLevel = LogLevel.Info) =>
  Effect.whenLogLevel(
    Effect.suspend(() =>
      Effect.logWithLevel(level, "request").pipe(
        Effect.annotateLogs({
          request_id: requestId,
          method,
          path: url.split("?")[0],
          status,
          duration_ms: Math.round((performance.now() - started) * 10) / 10
        })
      )
    ),
    level
  )

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane),
 * echoes it, logs one access line, and turns a defect into a 500 that names
 * the request id and nothing of the internals (a 503 with Retry-After when the
 * database was unreachable, see `defectAnswer`). It runs inside the API, before
 * the response is written, so typed errors still reach their encoders. Its one
 * pre-response handler also applies the headers other middleware added for the
 * request (X-RateLimit-*). The access line is built only when Info is logged.
 */
export const RequestContextMiddleware = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = requestIdOf(request.headers["x-request-id"])
    const started = performance.now()
    // In flight until its response is written to the end (or the connection is
    // gone): a streamed body outlives the handler, and the drain waits for it.
    requestStarted()
    NodeHttpServerRequest.toServerResponse(request).once("close", requestFinished)
    const headers = responseHeaders(request)
    headers["x-request-id"] = requestId
    return Effect.zipRight(
      HttpApp.appendPreResponseHandler((_request, response) => {
        observeRequest(request.method, request.url, response.status, started)
        const headed = HttpServerResponse.setHeaders(response, headers)
        return Effect.as(
          Effect.zipRight(
            requestsSettled,
            accessLog(request.method, request.url, requestId, response.status, started, isSandboxTraffic(request.url) ? LogLevel.Debug : LogLevel.Info)
          ),
          headed
        )
      }),
      app.pipe(
        Effect.catchAllDefect((defect) =>
          Effect.map(
            defectAnswer(defect, requestId),
            (answer) => HttpServerResponse.unsafeJson(answer.body, { status: answer.status, headers: answer.headers })
          )
        ),
        Effect.annotateLogs("request_id", requestId)
      )
    )
  })
)
