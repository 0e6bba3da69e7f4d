import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { Effect, Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { nodeServerLayer } from "../../src/http/node-server.js"
import { HttpAppLive } from "../../src/server.js"
import { TestDatabase } from "./database.js"

/**
 * A listener on 127.0.0.1 and an ephemeral port, built like the production one (front
 * routes first); the Effect app is attached later by `serve`.
 */
export const TestListener = nodeServerLayer({ port: 0, host: "127.0.0.1" })

/**
 * The test configuration, built once the listener has its port: `PUBLIC_URL` is the
 * server's own address, so the sandbox upstream (`META_GRAPH_URL` defaults to
 * `${PUBLIC_URL}/__sandbox/graph`) and its signed callbacks to `/webhook/incoming`
 * reach this very server, and the real Graph client runs end to end. Overrides win
 * (a test may point `META_GRAPH_URL` at msw with `UPSTREAM: "meta"`).
 */
export const TestConfig = (overrides: Partial<Record<string, string>> = {}) =>
  Layer.unwrapEffect(
    Effect.map(HttpServer.HttpServer, (server) => {
      const address = server.address
      const publicUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://localhost"
      return AppConfig.layerWith({ LOG_LEVEL: "warning", PUBLIC_URL: publicUrl, ...overrides })
    })
  )

/**
 * The real HTTP surface on 127.0.0.1 and an ephemeral port, over a fresh test
 * database, with the sandbox upstream pointed at itself. `baseUrl` is where to send requests.
 */
export const TestServer = (configOverrides: Partial<Record<string, string>> = {}) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpAppLive),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(TestConfig(configOverrides)),
    Layer.provideMerge(TestListener)
  )

/** The base URL of the running test server. */
export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://localhost"
})
