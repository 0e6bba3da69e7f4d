import { misuse } from "../errors.js"
import type { HeadersLike } from "../headers.js"
import { handleDelivery, METHOD_NOT_ALLOWED, resolveOptions, TOO_LARGE, unreadDefault, type HandlerReply, type WebhookHandlerOptions } from "./handle.js"
import { readBody, writeReply, type NodeResponseLike } from "./node.js"

/** The parts of an Express request the middleware uses. */
export interface ExpressRequestLike extends AsyncIterable<Uint8Array | string> {
  readonly method: string
  readonly headers: HeadersLike
  readonly body?: unknown
  /** Set by body-parser once it has read the body. */
  readonly _body?: unknown
}

/** Express's `next` callback. */
export type ExpressNext = (error?: unknown) => void

/** Options of the Express middleware. */
export type ExpressMiddlewareOptions = WebhookHandlerOptions

/** Creates Express-style middleware: works after `express.raw()` (or with no body parser at all), reports a body already parsed by `express.json()` through `next(TypeError)`, answers 401 on a bad signature and 204 once every `onEvent` resolved; an `onEvent` error goes to `next(error)`, and its promise never rejects (Express 4 would not catch it). */
export function createExpressMiddleware(
  options: ExpressMiddlewareOptions
): (request: ExpressRequestLike, response: NodeResponseLike, next: ExpressNext) => Promise<void> {
  const resolved = resolveOptions(options, "createExpressMiddleware")
  return async (request, response, next) => {
    if (request.method !== "POST") return writeReply(response, METHOD_NOT_ALLOWED)
    let body: string | Uint8Array | HandlerReply
    const parsed = request.body
    if (typeof parsed === "string" || parsed instanceof Uint8Array) {
      body = parsed
    } else if (parsed === undefined || unreadDefault(request)) {
      body = await readBody(request, resolved.maxBodyBytes)
    } else {
      return next(
        misuse(
          "req.body was already parsed (by express.json() or another body parser), so the raw bytes needed to check the signature are gone; " +
            'mount express.raw({ type: "application/json" }) on the webhook route, or register the webhook route before app.use(express.json())'
        )
      )
    }
    if (typeof body !== "string" && !(body instanceof Uint8Array)) return writeReply(response, body)
    if (body.length > resolved.maxBodyBytes) return writeReply(response, TOO_LARGE)
    try {
      writeReply(response, await handleDelivery(resolved, request.headers, body))
    } catch (error) {
      next(error)
    }
  }
}
