import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { AppConfig } from "../../src/config.js"
import { HttpAppLive } from "../../src/http/server.js"
import { TestDatabase } from "./database.js"

/**
 * The real HTTP surface on 127.0.0.1 and an ephemeral port, over a fresh test
 * database. `baseUrl` is where to send requests.
 */
export const TestServer = (configOverrides: Record<string, string> = {}) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpAppLive),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(AppConfig.layerWith({ LOG_LEVEL: "warning", ...configOverrides }))
  )

/** The base URL of the running test server. */
export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://localhost"
})
