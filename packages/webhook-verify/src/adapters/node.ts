import type { HeadersLike } from "../headers.js"
import { concatBytes } from "../encoding.js"
import { misuse } from "../errors.js"
import {
  handleDelivery,
  INCOMPLETE_BODY,
  METHOD_NOT_ALLOWED,
  replyHeaders,
  resolveOptions,
  TOO_LARGE,
  unreadDefault,
  type HandlerReply,
  type WebhookHandlerOptions
} from "./handle.js"

/** The parts of Node's `IncomingMessage` the adapter uses. */
export interface NodeRequestLike extends AsyncIterable<Uint8Array | string> {
  readonly method?: string | undefined
  readonly headers: HeadersLike
  /** Set by a framework that read the body before the handler (Next.js API routes, connect body parsers). */
  readonly body?: unknown
  /** Set by Express 4's body-parser once it has read the body. */
  readonly _body?: unknown
}

/** The parts of Node's `ServerResponse` the adapter uses. */
export interface NodeResponseLike {
  statusCode: number
  setHeader(name: string, value: string): unknown
  end(body?: string): unknown
}

/** Options of the Node `http` adapter. */
export interface NodeHandlerOptions extends WebhookHandlerOptions {
  /** Called when `onEvent` throws, before answering 500 (default `console.error`). */
  readonly onError?: (error: unknown) => void
}

const encoder = new TextEncoder()

const HANDLER_FAILED: HandlerReply = { status: 500, body: JSON.stringify({ error: "handler_failed" }) }

const ALREADY_PARSED =
  "req.body was already parsed (by a framework's body parser, such as the default one of Next.js API routes), so the raw bytes " +
  "needed to check the signature are gone; turn body parsing off for the webhook route (Next.js: export const config = { api: { bodyParser: false } })"

/** Reads a request body up to `limit` bytes; a body over the limit, or one that breaks off (the client aborted), comes back as the reply to send instead. */
export async function readBody(request: AsyncIterable<Uint8Array | string>, limit: number): Promise<Uint8Array | HandlerReply> {
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of request) {
      const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk
      size += bytes.byteLength
      if (size > limit) return TOO_LARGE
      chunks.push(bytes)
    }
  } catch {
    return INCOMPLETE_BODY
  }
  return chunks.length === 0 ? new Uint8Array(0) : concatBytes(chunks)
}

/** Writes a handler reply to a Node-style response. */
export function writeReply(response: NodeResponseLike, reply: HandlerReply): void {
  response.statusCode = reply.status
  for (const [name, value] of Object.entries(replyHeaders(reply))) response.setHeader(name, value)
  if (reply.status === 405) response.setHeader("allow", "POST")
  response.end(reply.body ?? undefined)
}

/** Creates a `node:http` request listener that reads the raw body, verifies it (401 on a bad signature), parses it and calls `onEvent` per event, answering 204; its promise never rejects, so a client that aborts mid-body cannot crash the server. A body a framework already parsed into an object answers 500 with a TypeError to `onError`. */
export function createNodeHandler(options: NodeHandlerOptions): (request: NodeRequestLike, response: NodeResponseLike) => Promise<void> {
  const resolved = resolveOptions(options, "createNodeHandler")
  const onError = options.onError ?? ((error: unknown) => console.error(error))
  return async (request, response) => {
    if (request.method !== "POST") return writeReply(response, METHOD_NOT_ALLOWED)
    const given = request.body
    const unread = given === undefined || unreadDefault(request)
    if (!unread && typeof given !== "string" && !(given instanceof Uint8Array)) {
      // The stream was read into an object: the raw bytes are gone, and every delivery would be a baffling 401.
      onError(misuse(ALREADY_PARSED))
      return writeReply(response, HANDLER_FAILED)
    }
    const body = unread ? await readBody(request, resolved.maxBodyBytes) : (given as string | Uint8Array)
    if (typeof body !== "string" && !(body instanceof Uint8Array)) return writeReply(response, body)
    if (body.length > resolved.maxBodyBytes) return writeReply(response, TOO_LARGE)
    let reply: HandlerReply
    try {
      reply = await handleDelivery(resolved, request.headers, body)
    } catch (error) {
      onError(error)
      reply = HANDLER_FAILED
    }
    writeReply(response, reply)
  }
}
