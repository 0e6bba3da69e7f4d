import { METRICS_PATH } from "../telemetry/metrics-endpoint.js"
import type { NodeRoute } from "./front-route.js"
import { requestIdOf } from "./request-context.js"

/** What a `ROLE=worker` process answers on PORT: the probes, and `/metrics` under its own rules (METRICS_TOKEN). */
const WORKER_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz", METRICS_PATH])

/**
 * The first front route of a `ROLE=worker` process: everything but its probes and
 * `/metrics` is a 404 in the DESIGN error shape, before any of the API's routes or
 * middleware runs. A worker put behind the load balancer by mistake then takes no
 * sends, no logins and no Meta POSTs (which it would otherwise serve as an API
 * process does). It still listens, so one health check serves every role.
 */
export const workerOnlyRoute: NodeRoute = (request, response) => {
  const path = (request.url ?? "/").split("?")[0]!
  if (WORKER_PATHS.has(path)) return false
  const body = JSON.stringify({
    detail: {
      code: "not_found",
      message: `No route for ${request.method ?? "GET"} ${path}: a worker process (ROLE=worker) answers only /healthz, /readyz and /metrics`
    }
  })
  response.writeHead(404, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestIdOf(request.headers["x-request-id"] as string | undefined)
  })
  response.end(body)
  return true
}
