import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { AppLive } from "./app.js"
import { explainStartupFailure } from "./startup-failure.js"

NodeRuntime.runMain(Layer.launch(AppLive).pipe(Effect.catchAllCause(explainStartupFailure)), { disablePrettyLogger: true })
