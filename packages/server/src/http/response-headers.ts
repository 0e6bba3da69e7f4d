import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

/*
 * Kept on the request object itself (as the platform keeps its own "handled" mark):
 * it lives exactly as long as the request, and costs no WeakMap entry per request.
 */
const slot = Symbol.for("@platform/server/ResponseHeaders")

type WithSlot = HttpServerRequest.HttpServerRequest & { [slot]?: Record<string, string> }

/**
 * The headers that must go on whatever response this request ends up with (its
 * handler's, an encoded typed error, a 500), filled by middleware that runs before the
 * handler (X-Request-Id, X-RateLimit-*). The request context's one pre-response handler
 * applies them: a pre-response handler of each middleware's own would cost a FiberRef
 * update and a closure per request. Names are lowercase.
 */
export const responseHeaders = (request: HttpServerRequest.HttpServerRequest): Record<string, string> =>
  (request as WithSlot)[slot] ??= {}
