import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config.js"
import { Inbound } from "./inbound.js"
import { handshakeChallenge } from "./verify.js"

const PATH = "/webhook/incoming"

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
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* request.arrayBuffer
        const answer = yield* inbound.receive(new Uint8Array(body), request.headers["x-hub-signature-256"])
        return HttpServerResponse.unsafeJson(answer.body, { status: answer.status })
      }).pipe(
        Effect.catchTag("RequestError", () =>
          Effect.succeed(HttpServerResponse.unsafeJson(
            { detail: { code: "invalid_body", message: "the request body could not be read" } },
            { status: 400 }
          )))
      )
    )
  })
)

/** The inbound endpoint with its services. */
export const InboundLive = InboundRoutes.pipe(Layer.provide(Inbound.Default))
