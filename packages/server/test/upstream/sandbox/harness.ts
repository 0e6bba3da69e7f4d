import { FetchHttpClient, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { createServer } from "node:http"
import { Effect, Layer, Redacted } from "effect"
import { AppConfig } from "../../../src/config.js"
import type { ChannelCredentials } from "../../../src/upstream/credentials.js"
import { SANDBOX_GRAPH_PREFIX, sandboxRouter } from "../../../src/upstream/sandbox/router.js"
import { SandboxState } from "../../../src/upstream/sandbox/state.js"
import { Upstream } from "../../../src/upstream/upstream.js"

export const APP_SECRET = "contract-test-app-secret"

export interface ReceivedWebhook {
  readonly signature: string | undefined
  readonly body: string
}

/** What the tiny `/webhook/incoming` recorder has received, in order. */
export const received: Array<ReceivedWebhook> = []

const app = HttpRouter.empty.pipe(
  HttpRouter.mount(SANDBOX_GRAPH_PREFIX, sandboxRouter),
  HttpRouter.post(
    "/webhook/incoming",
    Effect.gen(function*() {
      const req = yield* HttpServerRequest.HttpServerRequest
      const body = yield* req.text
      received.push({ signature: req.headers["x-hub-signature-256"], body })
      return HttpServerResponse.unsafeJson({ status: "ok" })
    }).pipe(Effect.orDie)
  )
)

const ServerLive = NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })

const ConfigFromServer = Layer.unwrapEffect(
  Effect.map(HttpServer.HttpServer, (server) => {
    const address = server.address as HttpServer.TcpAddress
    const base = `http://127.0.0.1:${address.port}`
    return AppConfig.layerWith({
      PUBLIC_URL: base,
      META_GRAPH_URL: `${base}${SANDBOX_GRAPH_PREFIX}`,
      META_APP_SECRET: APP_SECRET,
      META_APP_ID: "sandbox-app",
      SANDBOX_CALLBACK_DELAY_MS: "10"
    })
  })
)

/** A real HTTP server on 127.0.0.1 serving the simulator and the recorder, and an Upstream pointed at it. */
export const SandboxHarness = HttpServer.serve(app).pipe(
  Layer.provideMerge(SandboxState.Default),
  Layer.provideMerge(Upstream.layerWith({ retryBaseMs: 10 })),
  Layer.provideMerge(ConfigFromServer),
  Layer.provideMerge(FetchHttpClient.layer),
  Layer.provideMerge(ServerLive)
)

export const chatCreds: ChannelCredentials = {
  kind: "chat",
  id: 101,
  phone_number_id: "106540352242922",
  waba_id: "102290129340398",
  access_token: Redacted.make("EAAGsandboxChatTokenDoNotLeak0123456789")
}

export const socialCreds: ChannelCredentials = {
  kind: "social",
  id: 202,
  social_id: "17841405309211844",
  access_token: Redacted.make("EAAGsandboxSocialTokenDoNotLeak987654321")
}
