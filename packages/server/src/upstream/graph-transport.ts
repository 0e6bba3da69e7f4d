import { Effect, FiberRef } from "effect"
import http from "node:http"
import https from "node:https"
import { traceParentOf } from "../telemetry/tracing.js"

/** What the Graph API answered: the status, the headers (lower-case names) and the body as text. */
export interface GraphAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** The call never got a whole answer: refused, reset, or cut off mid-body. */
export class GraphTransportError {
  readonly _tag = "GraphTransportError"
  constructor(readonly cause: Error) {}
}

export interface GraphExchange {
  readonly method: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  /** Already serialised (JSON or form); none for a GET or DELETE without one. */
  readonly body?: string | undefined
}

/*
 * How long a kept-alive connection may sit idle before we close it: shorter than the idle
 * limit servers commonly apply (5 s), so a call never goes out on a connection the server is
 * closing (the undici default of the global fetch). A server's own `Keep-Alive: timeout=`
 * hint, when shorter, wins (node's Agent reads it).
 */
const IDLE_MS = 4_000

/*
 * Keep-alive agents of the process: a send reuses an open connection to the Graph API
 * instead of a TLS handshake per call.
 */
// The modules, not their `request` functions: msw replaces `request` on them after this module loads.
const transports = {
  http: { module: http, agent: new http.Agent({ keepAlive: true, timeout: IDLE_MS }) },
  https: { module: https, agent: new https.Agent({ keepAlive: true, timeout: IDLE_MS }) }
} as const

const headersOf = (raw: http.IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/** One exchange over node:http(s): the request is destroyed when the fiber is interrupted (a deadline, a shutdown). */
const exchangeOnce = (exchange: GraphExchange, headers: Readonly<Record<string, string>>) =>
  Effect.async<GraphAnswer, GraphTransportError>((resume) => {
    const { url } = exchange
    const { module, agent } = url.protocol === "https:" ? transports.https : transports.http
    let settled = false
    const settle = (effect: Effect.Effect<GraphAnswer, GraphTransportError>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    const fail = (error: Error) => settle(Effect.fail(new GraphTransportError(error)))
    const body = exchange.body === undefined ? undefined : Buffer.from(exchange.body)
    const request = module.request(url, {
      method: exchange.method,
      agent,
      headers: body === undefined ? headers : { ...headers, "content-length": String(body.length) }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", fail)
      response.on("aborted", () => fail(new Error("the connection closed before the whole answer arrived")))
      response.on("end", () =>
        settle(Effect.succeed({
          status: response.statusCode ?? 0,
          headers: headersOf(response.headers),
          text: Buffer.concat(chunks).toString("utf8")
        })))
    })
    request.on("error", fail)
    request.end(body)
    return Effect.sync(() => {
      settled = true
      request.destroy()
    })
  })

/**
 * The exchange of a Graph API call that sends a JSON or form body (or none) and reads a
 * JSON answer, over node:http(s) with keep-alive agents: about a third of the CPU of the
 * same call through the global fetch and @effect/platform's HttpClient, which allocate
 * web streams, a Request and a Response per call (`npm run bench:send`). msw intercepts
 * node:http as it does fetch, so tests mock the Graph API the same way. With tracing on it
 * is the `http.client <METHOD>` client span below the caller's, its `traceparent` sent,
 * as HttpClient's is.
 */
export const graphExchange = (exchange: GraphExchange): Effect.Effect<GraphAnswer, GraphTransportError> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (tracing) =>
    tracing
      ? Effect.useSpan(`http.client ${exchange.method}`, { kind: "client", captureStackTrace: false }, (span) => {
        span.attribute("http.request.method", exchange.method)
        span.attribute("server.address", exchange.url.origin)
        span.attribute("url.path", exchange.url.pathname)
        return exchangeOnce(exchange, { ...exchange.headers, traceparent: traceParentOf(span) }).pipe(
          Effect.tap((answer) => span.attribute("http.response.status_code", answer.status))
        )
      })
      : exchangeOnce(exchange, exchange.headers))
