import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { afterAll, afterEach, beforeAll } from "vitest"

/** One request the mock API received. */
export interface RecordedCall {
  readonly method: string
  readonly path: string
  readonly query: Record<string, string>
  readonly headers: Headers
  readonly body: unknown
}

/** A scripted answer: JSON with status and headers, or an SSE stream (kept open until the client aborts when `hold`). */
export type Reply =
  | { readonly status?: number; readonly json?: unknown; readonly headers?: Record<string, string> }
  | { readonly sse: ReadonlyArray<string>; readonly hold?: boolean }

export const BASE_URL = "http://api.test"

/** An msw server that records calls and answers each route per call number (the last reply repeats). */
export const mockApi = () => {
  const server = setupServer()
  const calls: RecordedCall[] = []
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
        const type = request.headers.get("content-type") ?? ""
        const text = request.method === "GET" ? "" : type.includes("multipart") ? "" : await request.text()
        calls.push({
          method: request.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: request.headers,
          body: type.includes("multipart") ? await request.formData() : text === "" ? undefined : JSON.parse(text)
        })
        const reply = replies[Math.min(n++, replies.length - 1)]!
        if ("sse" in reply) {
          const encoder = new TextEncoder()
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const chunk of reply.sse) controller.enqueue(encoder.encode(chunk))
              if (reply.hold) request.signal.addEventListener("abort", () => controller.close())
              else controller.close()
            }
          })
          return new HttpResponse(stream, { headers: { "content-type": "text/event-stream" } })
        }
        const status = reply.status ?? 200
        if (status === 204) return new HttpResponse(null, { status })
        return HttpResponse.json(reply.json ?? null, { status, headers: reply.headers ?? {} })
      })
    )
  }
  return { server, calls, on }
}
