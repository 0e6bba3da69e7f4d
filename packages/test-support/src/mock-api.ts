import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { afterAll, afterEach, beforeAll } from "vitest"

/** One request the mock API received. */
export interface RecordedCall {
  readonly method: string
  readonly path: string
  /** The query string as a plain object (compare it with `toEqual`). */
  readonly query: Record<string, string>
  readonly headers: Headers
  /** Parsed JSON, a FormData for multipart, the text otherwise, undefined without a body. */
  readonly body: unknown
}

/**
 * A scripted answer: a JSON body with status and headers, an SSE stream (kept open until
 * the client aborts when `hold`, closed after its chunks otherwise), or a dropped connection.
 */
export type Reply =
  | { readonly status?: number; readonly json?: unknown; readonly headers?: Record<string, string> }
  | { readonly sse: ReadonlyArray<string>; readonly hold?: boolean; readonly status?: number; readonly headers?: Record<string, string> }
  | { readonly network: true }

export const BASE_URL = "http://api.test"

const readBody = async (request: Request): Promise<unknown> => {
  const type = request.headers.get("content-type") ?? ""
  if (request.method === "GET" || request.method === "HEAD") return undefined
  if (type.includes("multipart/form-data")) return request.formData()
  const text = await request.text()
  if (text === "") return undefined
  return type.includes("json") ? JSON.parse(text) : text
}

const toResponse = (reply: Reply, request: Request): Response => {
  if ("network" in reply) return HttpResponse.error()
  if ("sse" in reply) {
    const encoder = new TextEncoder()
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of reply.sse) controller.enqueue(encoder.encode(chunk))
        if (reply.hold) request.signal.addEventListener("abort", () => controller.close())
        else controller.close()
      }
    })
    return new HttpResponse(stream, {
      status: reply.status ?? 200,
      headers: { "content-type": "text/event-stream", ...reply.headers }
    })
  }
  const status = reply.status ?? 200
  if (status === 204) return new HttpResponse(null, { status, headers: reply.headers ?? {} })
  return HttpResponse.json(reply.json ?? null, { status, headers: reply.headers ?? {} })
}

/**
 * An msw server for `BASE_URL` that records every call and answers each route per call
 * number: the n-th call to a route gets `replies[n]` (the last reply repeats), which
 * makes retry tests a list of answers. Call it at the top of a test file: it registers
 * the vitest hooks that start it, reset it after each test and close it.
 */
export const mockApi = () => {
  const server = setupServer()
  const calls: RecordedCall[] = []
  // Loopback requests pass through to real sockets (refused connections, end-to-end servers).
  beforeAll(() =>
    server.listen({
      onUnhandledRequest: (request, print) => {
        if (new URL(request.url).hostname !== "127.0.0.1") print.error()
      }
    })
  )
  afterEach(() => {
    server.resetHandlers()
    calls.length = 0
  })
  afterAll(() => server.close())

  const on = (method: "get" | "post" | "patch" | "delete", path: string, ...replies: ReadonlyArray<Reply>) => {
    let n = 0
    server.use(
      http[method](`${BASE_URL}${path}`, async ({ request }) => {
        const url = new URL(request.url)
        calls.push({
          method: request.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: request.headers,
          body: await readBody(request)
        })
        const reply = replies[Math.min(n++, replies.length - 1)]!
        return toResponse(reply, request)
      })
    )
  }
  return { server, calls, on }
}
