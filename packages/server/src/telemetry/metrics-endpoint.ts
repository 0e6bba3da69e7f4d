import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Layer, Option, Redacted, Runtime } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { AppConfig } from "../config.js"
import { StartupError } from "../startup-failure.js"
import { MetricsScrape } from "./scrape.js"

export const METRICS_PATH = "/metrics"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Whether an Authorization header carries `Bearer <token>` (compared in constant time). */
export const bearerMatches = (header: string | undefined, token: Redacted.Redacted<string>) => {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return m !== null && timingSafeEqual(digest(m[1]!), digest(Redacted.value(token)))
}

const UNAUTHORIZED = JSON.stringify({
  detail: { code: "unauthorized", message: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>" }
})
const CHALLENGE = 'Bearer realm="metrics"'

/**
 * `GET /metrics` on the main listener, only when `METRICS_TOKEN` is set, and then only
 * with `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise). Outside the HttpApi
 * contract, so it is no route of the public OpenAPI document.
 */
export const MetricsRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (Option.isNone(config.metricsToken)) return
    const token = config.metricsToken.value
    const metrics = yield* MetricsScrape
    yield* router.get(
      METRICS_PATH,
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        bearerMatches(request.headers["authorization"], token)
          ? Effect.map(metrics.scrape, (text) =>
            HttpServerResponse.text(text, { contentType: metrics.contentType, headers: { "cache-control": "no-store" } }))
          : Effect.succeed(HttpServerResponse.text(UNAUTHORIZED, {
            status: 401,
            contentType: "application/json",
            headers: { "www-authenticate": CHALLENGE }
          })))
    )
  })
)

/** Where the metrics listener listens (none when `METRICS_PORT=off`, or with a token and no port). */
export class MetricsListener extends Context.Tag("@platform/server/MetricsListener")<MetricsListener, {
  readonly address: Option.Option<{ readonly host: string; readonly port: number }>
}>() {}

const isLoopback = (host: string) => host === "localhost" || host === "::1" || host.startsWith("127.")

/**
 * `GET /metrics` on a listener of its own: `METRICS_HOST` (127.0.0.1) and `METRICS_PORT`
 * (9464 when neither it nor `METRICS_TOKEN` is set), the bearer token required there too
 * when set. A port taken at start fails the start when `METRICS_PORT` named it; the
 * default port taken (a second server on this machine) only costs this one its listener.
 */
export const MetricsListenerLive = Layer.scoped(
  MetricsListener,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const none = { address: Option.none() }
    if (Option.isNone(config.metricsListener.port)) return none
    const metrics = yield* MetricsScrape
    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    const host = config.metricsHost
    const token = Option.getOrUndefined(config.metricsToken)

    const handle = (request: IncomingMessage, response: ServerResponse) => {
      const path = (request.url ?? "/").split("?")[0]
      if (path !== METRICS_PATH) return response.writeHead(404, { "content-type": "text/plain" }).end("Not Found\n")
      if (request.method !== "GET" && request.method !== "HEAD") {
        return response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("Method Not Allowed\n")
      }
      if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
        return response.writeHead(401, { "content-type": "application/json", "www-authenticate": CHALLENGE }).end(UNAUTHORIZED)
      }
      run(metrics.scrape).then(
        (text) =>
          response.writeHead(200, { "content-type": metrics.contentType, "cache-control": "no-store" })
            .end(request.method === "HEAD" ? undefined : text),
        () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n")
      )
    }

    const listening = yield* Effect.acquireRelease(
      Effect.async<Option.Option<{ host: string; port: number; close: () => void }>, StartupError>((resume) => {
        const server = createServer(handle)
        server.keepAliveTimeout = 5_000
        server.once("error", (error: NodeJS.ErrnoException) => {
          if (config.metricsListener.defaulted && error.code === "EADDRINUSE") return resume(Effect.succeedNone)
          resume(Effect.fail(new StartupError({
            message: `the metrics listener cannot listen on ${host}:${config.metricsListener.port.pipe(Option.getOrElse(() => 0))} ` +
              `(${error.code ?? error.message}): set METRICS_PORT to a free port, or METRICS_PORT=off`
          })))
        })
        server.listen(Option.getOrElse(config.metricsListener.port, () => 0), host, () => {
          const port = (server.address() as AddressInfo).port
          resume(Effect.succeedSome({
            host,
            port,
            close: () => {
              server.close()
              server.closeAllConnections()
            }
          }))
        })
      }),
      (listener) => Effect.sync(() => Option.map(listener, (l) => l.close()))
    )
    if (Option.isNone(listening)) {
      yield* Effect.logWarning(
        `metrics: port ${Option.getOrElse(config.metricsListener.port, () => 0)} on ${host} is in use (another server on this machine?); ` +
          "this one serves no metrics listener: set METRICS_PORT, or METRICS_TOKEN to serve GET /metrics on the main port"
      )
      return none
    }
    const { port } = listening.value
    yield* Effect.logInfo(`metrics on http://${host.includes(":") ? `[${host}]` : host}:${port}${METRICS_PATH}`)
    if (token === undefined && !isLoopback(host)) {
      yield* Effect.logWarning(`metrics: served on ${host} without METRICS_TOKEN; anyone who reaches the port can read them`)
    }
    return { address: Option.some({ host, port }) }
  })
)
