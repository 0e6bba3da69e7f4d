import * as HttpRouter from "@effect/platform/HttpRouter"
import { PlatformApi, routeKey, type RouteSecurity, routeTable } from "@platform/shared"
import { Effect } from "effect"

const table = new Map(routeTable(PlatformApi).map((r) => [routeKey(r.method, r.path), r]))
// Routes are built once, so their entries are memoized by identity (no key string per request).
const byRoute = new WeakMap<HttpRouter.Route<unknown, unknown>, RouteSecurity | undefined>()

/** A route's {scope, cookie} entry of the shared route table (SPEC §5.3, §5.4); undefined for a route outside it. */
export const routeSecurityOf = (route: HttpRouter.Route<unknown, unknown>): RouteSecurity | undefined => {
  if (byRoute.has(route)) return byRoute.get(route)
  const entry = table.get(routeKey(route.method, route.path))
  byRoute.set(route, entry)
  return entry
}

/** The entry of the route being served: what ApiKeyAuth admitted the request with. */
export const currentRouteSecurity = Effect.map(HttpRouter.RouteContext, ({ route }) => routeSecurityOf(route))
