import { expect, layer } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Option } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { AppConfig, DEFAULT_METRICS_PORT } from "../../src/config.js"
import { MetricsListener, MetricsListenerLive } from "../../src/telemetry/metrics-endpoint.js"
import { MetricsScrape } from "../../src/telemetry/scrape.js"
import { startupMessage } from "../../src/startup-failure.js"
import { TestDatabase } from "../support/database.js"
import { TestServer } from "../support/server.js"
import { request } from "./support.js"

/** The metrics listener alone, with this configuration, over the file's database. */
const listenerWith = (env: Record<string, string>) =>
  MetricsListenerLive.pipe(
    Layer.provide(MetricsScrape.Default),
    Layer.provide(AppConfig.layerWith(env))
  )

const get = (port: number, path: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, init)
    return { status: res.status, headers: res.headers, text: await res.text() }
  })

const configOf = (env: Record<string, string>) =>
  Effect.exit(Effect.provide(AppConfig, AppConfig.layerWith(env)))

layer(TestDatabase, { timeout: 60_000 })("the metrics listener", (it) => {
  it.scoped("METRICS_PORT without a token: GET /metrics on 127.0.0.1, any other path 404, another method 405", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(listenerWith({ METRICS_PORT: "0" }))
      const address = Option.getOrThrow(Context.get(context, MetricsListener).address)
      expect(address.host).toBe("127.0.0.1")
      const ok = yield* get(address.port, "/metrics")
      expect(ok.status).toBe(200)
      expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(ok.text).toContain("platform_delivery_queue_due{queue=\"normalized\"}")
      expect(ok.text).toContain("platform_db_pool_connections{pool=\"app\"")
      expect((yield* get(address.port, "/")).status).toBe(404)
      expect((yield* get(address.port, "/metrics", { method: "POST" })).status).toBe(405)
    }))

  it.scoped("METRICS_PORT with METRICS_TOKEN: the bearer token is required there too", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(listenerWith({ METRICS_PORT: "0", METRICS_TOKEN: "listener-token" }))
      const { port } = Option.getOrThrow(Context.get(context, MetricsListener).address)
      const none = yield* get(port, "/metrics")
      expect(none.status).toBe(401)
      expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"')
      expect((yield* get(port, "/metrics", { headers: { authorization: "Bearer wrong" } })).status).toBe(401)
      expect((yield* get(port, "/metrics", { headers: { authorization: "Bearer listener-token" } })).status).toBe(200)
    }))

  it.scoped("a METRICS_PORT in use fails the start with a line naming METRICS_PORT", () =>
    Effect.gen(function*() {
      const taken = createServer()
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()))),
        () => Effect.sync(() => taken.close())
      )
      const port = (taken.address() as AddressInfo).port
      const exit = yield* Effect.exit(Layer.build(listenerWith({ METRICS_PORT: String(port) })))
      expect(Exit.isFailure(exit)).toBe(true)
      const message = Exit.isFailure(exit) ? startupMessage(exit.cause) : undefined
      expect(message).toContain(`127.0.0.1:${port}`)
      expect(message).toContain("METRICS_PORT")
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).not.toContain("PORT=<another port>")
    }))

  it.effect("where /metrics is served, by configuration", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string>, Option.Option<number>]> = [
        [{}, Option.some(DEFAULT_METRICS_PORT)],
        [{ METRICS_TOKEN: "t" }, Option.none()],
        [{ METRICS_TOKEN: "t", METRICS_PORT: "9100" }, Option.some(9100)],
        [{ METRICS_PORT: "9100" }, Option.some(9100)],
        [{ METRICS_PORT: "off" }, Option.none()],
        [{ METRICS_PORT: "" }, Option.some(DEFAULT_METRICS_PORT)]
      ]
      for (const [env, port] of cases) {
        const config = yield* configOf(env)
        expect(Exit.isSuccess(config) && config.value.metricsListener.port, JSON.stringify(env)).toEqual(port)
      }
      for (const bad of ["http", "70000", "-1", "9100x"]) {
        expect(Exit.isFailure(yield* configOf({ METRICS_PORT: bad })), bad).toBe(true)
      }
    }))
})

layer(TestServer(), { timeout: 60_000 })("the main listener without METRICS_TOKEN", (it) => {
  it.effect("GET /metrics there is 404: no metrics on the public port unless a token protects them", () =>
    Effect.gen(function*() {
      const reply = yield* request("GET", "/metrics")
      expect(reply.status).toBe(404)
      expect(reply.text).not.toContain("platform_")
    }))
})
