import { observeHttpRequest } from "./metrics.js"
import { routeTemplate } from "./route-templates.js"

/** Counts one answered request under its route template; `started` is its `performance.now()` at arrival. */
export const observeRequest = (method: string, url: string, status: number, started: number) =>
  observeHttpRequest(method, routeTemplate(method, url), status, (performance.now() - started) / 1000)
