import { handleDelivery, INCOMPLETE_BODY, METHOD_NOT_ALLOWED, replyHeaders, resolveOptions, TOO_LARGE, type HandlerReply, type WebhookHandlerOptions } from "./handle.js"

/** Options of the Fetch adapter. */
export interface FetchHandlerOptions extends WebhookHandlerOptions {
  /** Called when `onEvent` throws, before answering 500 (default `console.error`). */
  readonly onError?: (error: unknown) => void
}

function toResponse(reply: HandlerReply): Response {
  const headers: Record<string, string> = replyHeaders(reply)
  if (reply.status === 405) headers.allow = "POST"
  return new Response(reply.body, { status: reply.status, headers })
}

/** Creates a Fetch `Request → Response` handler (Next.js route handlers, Hono, Cloudflare Workers, Bun, Deno) that verifies, parses and calls `onEvent` per event; it always resolves to a Response, 400 when the body breaks off. */
export function createFetchHandler(options: FetchHandlerOptions): (request: Request) => Promise<Response> {
  const resolved = resolveOptions(options, "createFetchHandler")
  const onError = options.onError ?? ((error: unknown) => console.error(error))
  return async (request) => {
    if (request.method !== "POST") return toResponse(METHOD_NOT_ALLOWED)
    const declared = Number(request.headers.get("content-length") ?? 0)
    if (declared > resolved.maxBodyBytes) return toResponse(TOO_LARGE)
    let body: Uint8Array
    try {
      body = new Uint8Array(await request.arrayBuffer())
    } catch {
      return toResponse(INCOMPLETE_BODY)
    }
    if (body.byteLength > resolved.maxBodyBytes) return toResponse(TOO_LARGE)
    try {
      return toResponse(await handleDelivery(resolved, request.headers, body))
    } catch (error) {
      onError(error)
      return toResponse({ status: 500, body: JSON.stringify({ error: "handler_failed" }) })
    }
  }
}
