import { Context, type Effect, type LogLevel, type Scope } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { observeRequest } from "../telemetry/http-requests.js"
import { type DefectAnswer, defectAnswer } from "./defect-answer.js"
import { accessLog, requestFinished, requestIdOf, requestStarted } from "./request-context.js"

/** A plain node:http handler: true when it took the request. */
export type NodeRoute = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * Routes served by plain node:http handlers ahead of the Effect HTTP app, for the
 * hottest path only (`POST /webhook/incoming`): a request there skips the
 * platform's router, middleware and response conversion, which cost more than the
 * handler itself (measured under bench:inbound: 0.18 ms of server CPU per POST
 * instead of 0.33-0.40 ms). Such a route does the request context's duties itself
 * (request id, access line, in-flight count, the answer to a defect).
 */
export class FrontRoutes extends Context.Tag("@platform/server/FrontRoutes")<FrontRoutes, {
  readonly add: (route: NodeRoute) => Effect.Effect<void, never, Scope.Scope>
}>() {}

/** A front route's request, seen as the request context sees one (see `frontRequest`). */
export interface FrontRequest {
  readonly requestId: string
  /** The access line of its response, built only when its level (Info unless given) is logged. */
  readonly accessLog: (status: number, level?: LogLevel.LogLevel) => Effect.Effect<void>
  /** The answer to a defect, logged: a 500 naming only the request id, or a 503 when the database was unreachable. */
  readonly defectAnswer: (defect: unknown) => Effect.Effect<DefectAnswer>
  /** Counts the answer in the HTTP metrics (as the request context does). */
  readonly observe: (status: number) => void
}

/**
 * The request context's duties, done by a front route itself: the request's id (the
 * caller's `X-Request-Id` when it is sane), counted in flight until its response closes
 * (the drain waits for it), its access line, its answer to a defect and metrics.
 */
export const frontRequest = (request: IncomingMessage, response: ServerResponse): FrontRequest => {
  const requestId = requestIdOf(request.headers["x-request-id"] as string | undefined)
  const started = performance.now()
  const method = request.method ?? "GET"
  const url = request.url ?? "/"
  requestStarted()
  response.once("close", requestFinished)
  return {
    requestId,
    accessLog: (status, level) => accessLog(method, url, requestId, status, started, level),
    defectAnswer: (defect) => defectAnswer(defect, requestId),
    observe: (status) => observeRequest(method, url, status, started)
  }
}
