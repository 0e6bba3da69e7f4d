import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { AppLive } from "./app.js"

NodeRuntime.runMain(Layer.launch(AppLive), { disablePrettyLogger: true })
