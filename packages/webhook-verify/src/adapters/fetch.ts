import { concatBytes } from "../encoding.js"
import { misuse } from "../errors.js"
import { handleDelivery, INCOMPLETE_BODY, METHOD_NOT_ALLOWED, replyHeaders, resolveOptions, TOO_LARGE, type HandlerReply, type WebhookHandlerOptions } from "./handle.js"

/** Options of the Fetch adapter. */
export interface FetchHandlerOptions extends WebhookHandlerOptions {
  /** Called when `onEvent` throws, before answering 500 (default `console.error`). */
  readonly onError?: (error: unknown) => void
}

const HANDLER_FAILED: HandlerReply = { status: 500, body: JSON.stringify({ error: "handler_failed" }) }

function toResponse(reply: HandlerReply): Response {
  const headers: Record<string, string> = replyHeaders(reply)
  if (reply.status === 405) headers.allow = "POST"
  return new Response(reply.body, { status: reply.status, headers })
}

/**
 * Reads a body up to `limit` bytes and stops reading (cancelling the stream) as soon as it passes the limit, so a body
 * without a content-length cannot fill memory; one over the limit or one that breaks off comes back as the reply.
 */
async function readLimited(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | HandlerReply> {
  if (stream === null) return new Uint8Array(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > limit) {
        void reader.cancel().catch(() => undefined)
        return TOO_LARGE
      }
      chunks.push(value)
    }
  } catch {
    return INCOMPLETE_BODY
  }
  return chunks.length === 0 ? new Uint8Array(0) : concatBytes(chunks)
}

/** Creates a Fetch `Request → Response` handler (Next.js route handlers, Hono, Cloudflare Workers, Bun, Deno) that verifies, parses and calls `onEvent` per event; it always resolves to a Response, 400 when the body breaks off, 500 (with a TypeError to `onError`) when the body was already read. */
export function createFetchHandler(options: FetchHandlerOptions): (request: Request) => Promise<Response> {
  const resolved = resolveOptions(options, "createFetchHandler")
  const onError = options.onError ?? ((error: unknown) => console.error(error))
  return async (request) => {
    if (request.method !== "POST") return toResponse(METHOD_NOT_ALLOWED)
    const declared = Number(request.headers.get("content-length") ?? 0)
    if (declared > resolved.maxBodyBytes) return toResponse(TOO_LARGE)
    if (request.bodyUsed || request.body?.locked === true) {
      // The stream is gone (Node even rejects a second reader): say so rather than reject, and 500 so the platform retries.
      onError(
        misuse(
          "the request body was already read (request.json(), request.text() or a framework's body parsing), so the raw bytes " +
            "needed to check the signature are gone; pass the untouched Request to the handler (in Hono: c.req.raw, before any c.req.json())"
        )
      )
      return toResponse(HANDLER_FAILED)
    }
    const body = await readLimited(request.body, resolved.maxBodyBytes)
    if (!(body instanceof Uint8Array)) return toResponse(body)
    try {
      return toResponse(await handleDelivery(resolved, request.headers, body))
    } catch (error) {
      onError(error)
      return toResponse(HANDLER_FAILED)
    }
  }
}
