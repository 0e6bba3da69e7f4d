import type { HttpServerRequest } from "@effect/platform"

const pending = new WeakMap<HttpServerRequest.HttpServerRequest, Readonly<Record<string, string>>>()

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
  const before = pending.get(request)
  pending.set(request, before === undefined ? headers : { ...before, ...headers })
}

/** The headers added for `request` so far (undefined when none). */
export const responseHeadersOf = (
  request: HttpServerRequest.HttpServerRequest
): Readonly<Record<string, string>> | undefined => pending.get(request)
