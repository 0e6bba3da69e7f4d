import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { IncomingMessage } from "node:http"
import { AppConfig } from "../config.js"
import { Inbound } from "./inbound.js"
import { handshakeChallenge } from "./verify.js"

const PATH = "/webhook/incoming"
/** Far above any Meta POST; the platform's default request body limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024

const UNREADABLE = HttpServerResponse.unsafeJson(
  { detail: { code: "invalid_body", message: "the request body could not be read" } },
  { status: 400 }
)

/**
 * The exact bytes received (undefined when the body cannot be read). On Node the
 * chunks are gathered straight from the IncomingMessage: cheaper per request than
 * the generic stream reader on the hot path; elsewhere `request.arrayBuffer`.
 */
const readBody = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Uint8Array | undefined> => {
  const source = (request as { readonly source?: unknown }).source
  if (!(source instanceof IncomingMessage)) {
    return request.arrayBuffer.pipe(
      Effect.map((body): Uint8Array | undefined => new Uint8Array(body)),
      Effect.orElseSucceed(() => undefined)
    )
  }
  return Effect.async<Uint8Array | undefined>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const done = (body: Uint8Array | undefined) => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      resume(Effect.succeed(body))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        done(undefined)
        source.resume()
      } else chunks.push(chunk)
    }
    const onEnd = () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    const onError = () => done(undefined)
    if (source.readableEnded) return resume(Effect.succeed(undefined))
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
  })
}

/**
 * `/webhook/incoming`, outside the HttpApi contract because the POST must see
 * the exact bytes Meta signed (a decoded payload would already be re-encoded).
 */
export const InboundRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const inbound = yield* Inbound

    yield* router.get(
      PATH,
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : ""
        const challenge = handshakeChallenge(new URLSearchParams(query), config.metaVerifyToken)
        return challenge === undefined
          ? HttpServerResponse.text("Forbidden", { status: 403 })
          : HttpServerResponse.text(challenge, { status: 200, contentType: "text/plain" })
      })
    )

    yield* router.post(
      PATH,
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.flatMap(readBody(request), (body) =>
          body === undefined
            ? Effect.succeed(UNREADABLE)
            : Effect.map(
              inbound.receive(body, request.headers["x-hub-signature-256"]),
              (answer) => HttpServerResponse.unsafeJson(answer.body, { status: answer.status })
            )))
    )
  })
)

/** The inbound endpoint with its services. */
export const InboundLive = InboundRoutes.pipe(Layer.provide(Inbound.Default))
