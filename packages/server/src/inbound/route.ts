import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Exit, FiberRef, FiberRefs, Layer, LogLevel, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { AppConfig } from "../config.js"
import { payloadTooLargeBody } from "../http/body-limit.js"
import { frontRequest, FrontRoutes } from "../http/front-route.js"
import { countInbound } from "../telemetry/metrics.js"
import { SANDBOX_CALLBACK_HEADER } from "../upstream/sandbox/webhook-poster.js"
import { manualSpans, parseTraceParent } from "../telemetry/tracing.js"
import { Inbound, type InboundAnswer } from "./inbound.js"
import { handshakeChallenge } from "./verify.js"

const PATH = "/webhook/incoming"
/** Far above any Meta POST; the platform's default request body limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024

const UNREADABLE = { detail: { code: "invalid_body", message: "the request body could not be read" } }

/** A failed handshake, in DESIGN's coded shape like every other refusal. */
const HANDSHAKE_REFUSED = {
  detail: {
    code: "handshake_refused",
    message: "hub.mode must be subscribe and hub.verify_token must be the app's verify token (META_VERIFY_TOKEN)"
  }
}

type ReadBody = { readonly _tag: "Read"; readonly body: Uint8Array } | { readonly _tag: "TooLarge" } | { readonly _tag: "Unreadable" }

/** The exact bytes received; TooLarge past MAX_BODY_BYTES (declared or counted), Unreadable when the read fails. */
const readBody = (source: IncomingMessage, done: (read: ReadBody) => void) => {
  if (Number(source.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
    source.resume()
    return done({ _tag: "TooLarge" })
  }
  const chunks: Array<Buffer> = []
  let size = 0
  let finished = false
  const finish = (read: ReadBody) => {
    if (finished) return
    finished = true
    source.off("data", onData)
    done(read)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      finish({ _tag: "TooLarge" })
      source.resume()
    } else chunks.push(chunk)
  }
  source.on("data", onData)
  source.once("end", () => finish({ _tag: "Read", body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }))
  source.once("error", () => finish({ _tag: "Unreadable" }))
}

const isInboundPost = (request: IncomingMessage) => {
  if (request.method !== "POST") return false
  const url = request.url ?? ""
  return url === PATH || url.startsWith(`${PATH}?`)
}

/**
 * `POST /webhook/incoming`, the platform's hottest path, as a front route (see
 * FrontRoutes): the exact bytes Meta signed go to `Inbound.receive`, which
 * answers after its commit; the request id, access line, in-flight count and
 * the answer to a defect are done here as the request context does them.
 */
const InboundPostRoute = Layer.scopedDiscard(Effect.gen(function*() {
  const routes = yield* FrontRoutes
  const inbound = yield* Inbound
  const runtime = yield* Effect.runtime<never>()
  const runCallback = Runtime.runCallback(runtime)
  // The minimum log level is the process's (LOG_LEVEL): read once, so a POST
  // answered directly starts no fiber for an access line nobody logs.
  const minimum = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel)
  const logged = (level: LogLevel.LogLevel) => LogLevel.lessThanEqual(minimum, level)
  // The sandbox's own callbacks (a send's sent, delivered, read) are logged at Debug: a terminal
  // shows the developer's requests. Only with the sandbox upstream, where they are the sandbox's.
  const sandbox = (yield* AppConfig).upstream === "sandbox"
  // Undefined with tracing off: then a POST makes no span and stores no trace context.
  const spans = yield* manualSpans

  const answer = (response: ServerResponse, requestId: string, a: InboundAnswer) => {
    response.writeHead(a.status, { ...a.headers, "content-type": "application/json", "x-request-id": requestId })
      .end(JSON.stringify(a.body))
  }

  yield* routes.add((request, response) => {
    if (!isInboundPost(request)) return false
    const front = frontRequest(request, response)
    const requestId = front.requestId
    // The POST's server span (a caller's `traceparent` is its parent): its events carry
    // it to their deliveries, and the lines logged for this POST carry its trace id.
    const span = spans?.start("POST /webhook/incoming", {
      kind: "server",
      parent: parseTraceParent(request.headers.traceparent as string | undefined),
      attributes: { "http.request.method": "POST", "http.route": PATH, "url.path": PATH, "request.id": requestId }
    })
    const inSpan = <A>(effect: Effect.Effect<A>) => span === undefined ? effect : Effect.withParentSpan(effect, span.span)
    const respond = (a: InboundAnswer) => {
      answer(response, requestId, a)
      front.observe(a.status)
      countInbound(a.outcome ?? (a.status >= 400 ? "error" : "updated"))
      if (span !== undefined) {
        span.attribute("http.response.status_code", a.status)
        span.attribute("inbound.outcome", a.outcome ?? "error")
        span.end(a.status >= 500 ? `HTTP ${a.status}` : undefined)
      }
      const level = sandbox && request.headers[SANDBOX_CALLBACK_HEADER] !== undefined ? LogLevel.Debug : LogLevel.Info
      if (logged(level)) runCallback(inSpan(Effect.annotateLogs(front.accessLog(a.status, level), "request_id", requestId)))
    }
    const run = (effect: Effect.Effect<InboundAnswer>) =>
      runCallback(
        inSpan(effect.pipe(
          // A 500, or a 503 when the database was unreachable: either way Meta retries the POST.
          Effect.catchAllDefect((defect) =>
            Effect.map(front.defectAnswer(defect), (answer) => ({ ...answer, outcome: "error" as const }))
          ),
          Effect.annotateLogs("request_id", requestId)
        )),
        { onExit: (exit) => Exit.isSuccess(exit) && respond(exit.value) }
      )
    readBody(request, (read) => {
      if (read._tag === "TooLarge") return respond({ status: 413, body: payloadTooLargeBody(MAX_BODY_BYTES), outcome: "invalid_body" })
      if (read._tag === "Unreadable") return respond({ status: 400, body: UNREADABLE, outcome: "invalid_body" })
      try {
        inbound.receive(read.body, request.headers["x-hub-signature-256"] as string | undefined, {
          respond,
          run,
          traceParent: span?.traceParent
        })
      } catch (defect) {
        run(Effect.die(defect))
      }
    })
    return true
  })
}))

/**
 * `GET /webhook/incoming`, Meta's verification handshake, outside the HttpApi
 * contract like the POST (which must see the exact bytes Meta signed: a decoded
 * payload would already be re-encoded).
 */
export const InboundRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig

    yield* router.get(
      PATH,
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : ""
        const challenge = handshakeChallenge(new URLSearchParams(query), config.metaVerifyToken)
        return challenge === undefined
          ? HttpServerResponse.unsafeJson(HANDSHAKE_REFUSED, { status: 403 })
          : HttpServerResponse.text(challenge, { status: 200, contentType: "text/plain" })
      })
    )
  })
)

/** The inbound endpoint with its services. */
export const InboundLive = Layer.merge(InboundRoutes, InboundPostRoute).pipe(Layer.provide(Inbound.Default))
