import type { HttpServerRequest } from "@effect/platform"

/*
 * Kept on the request object itself (as the platform keeps its own "handled" mark):
 * it lives exactly as long as the request, and costs no WeakMap entry per request.
 */
const slot = Symbol.for("@platform/server/ResponseHeaders")

type WithSlot = HttpServerRequest.HttpServerRequest & { [slot]?: Readonly<Record<string, string>> }

/**
 * Headers that must go on whatever response a request ends up with (its handler's, an
 * encoded typed error, a 500), set by middleware that runs before the handler. The
 * request context's one pre-response handler applies them: a pre-response handler of
 * each middleware's own would cost a FiberRef update and a closure per request.
 */
export const addResponseHeaders = (
  request: HttpServerRequest.HttpServerRequest,
  headers: Readonly<Record<string, string>>
): void => {
  const before = (request as WithSlot)[slot]
  ;(request as WithSlot)[slot] = before === undefined ? headers : { ...before, ...headers }
}

/** The headers added for `request` so far (undefined when none). */
export const responseHeadersOf = (
  request: HttpServerRequest.HttpServerRequest
): Readonly<Record<string, string>> | undefined => (request as WithSlot)[slot]
