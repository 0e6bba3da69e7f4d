import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { PlatformApi } from "@platform/shared"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { AppConfig } from "../config.js"
import { HealthLive } from "./health.js"
import { RequestContextMiddleware } from "./request-context.js"
import { ValidationMiddleware } from "./validation.js"

/** Every implemented group of the contract. */
export const ApiLive = HttpApiBuilder.api(PlatformApi).pipe(
  Layer.provide([HealthLive])
)

/** The routes and middleware of the HTTP surface, without a listener. */
export const HttpAppLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/platform/v1/openapi.json" }),
  HttpApiScalar.layer({ path: "/platform/v1/docs" }),
  ValidationMiddleware,
  RequestContextMiddleware
).pipe(Layer.provideMerge(ApiLive))

/** Serves the HTTP surface on HOST:PORT, logging the address once listening. */
export const HttpLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  return HttpApiBuilder.serve().pipe(
    Layer.provide(HttpAppLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
  )
}))
