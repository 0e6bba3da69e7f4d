/**
 * The Graph API simulator (src/upstream/sandbox, the code demo mode mounts under
 * `/__sandbox/graph`) served on a port of its own, in a process of its own, so a
 * send benchmark's upstream costs the platform's process nothing but the HTTP call.
 * Status callbacks (sent, delivered, read) are posted to `${PUBLIC_URL}/webhook/incoming`
 * as in demo mode when argv[3] is `on`, and not scheduled at all when it is `off`.
 * The simulator's memory of calls and messages is emptied every second: a benchmark
 * never reads it back.
 * argv: port callbacks(on|off); env: PUBLIC_URL, META_APP_ID, META_APP_SECRET (as the platform's).
 */
import { FetchHttpClient, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { AppConfig } from "../src/config.js"
import { sandboxRouter } from "../src/upstream/sandbox/router.js"
import { SandboxState } from "../src/upstream/sandbox/state.js"

const [port, callbacks] = process.argv.slice(2) as [string, string]

/** The simulator's state, with `scheduleCallbacks` doing nothing when callbacks are off. */
const State = callbacks === "off"
  ? Layer.effect(
    SandboxState,
    Effect.map(SandboxState, (state) => SandboxState.make({ ...state, scheduleCallbacks: () => Effect.void }))
  ).pipe(Layer.provide(SandboxState.Default))
  : SandboxState.Default

const Forget = Layer.effectDiscard(Effect.map(SandboxState, (state) => {
  setInterval(() => {
    state.calls.length = 0
    state.messages.length = 0
    state.webhooks.length = 0
  }, 1000).unref()
}))

const Main = HttpServer.serve(sandboxRouter).pipe(
  Layer.provide(Forget),
  Layer.provideMerge(State),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(port), host: "127.0.0.1" })),
  Layer.provide(FetchHttpClient.layer),
  Layer.provide(AppConfig.Default)
)

console.error(`graph simulator on ${port}, status callbacks ${callbacks}`)
NodeRuntime.runMain(Layer.launch(Main))
