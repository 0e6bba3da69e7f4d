import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config.js"
import { SandboxRoutes } from "./sandbox/router.js"
import { SandboxState } from "./sandbox/state.js"
import { Upstream } from "./upstream.js"

/**
 * `Upstream` for the process over the global fetch (undici inside Node, so msw can
 * intercept it in tests), and the simulator's `SandboxState`. The state is only
 * memory; with `UPSTREAM=meta` nothing routes to it.
 */
export const UpstreamLive = Layer.merge(Upstream.Default, SandboxState.Default).pipe(
  Layer.provide(FetchHttpClient.layer)
)

/** The simulator's routes under `/__sandbox/graph` when `UPSTREAM=sandbox` (DESIGN §3); nothing otherwise. */
export const SandboxRoutesLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => config.upstream === "sandbox" ? SandboxRoutes : Layer.empty)
)
