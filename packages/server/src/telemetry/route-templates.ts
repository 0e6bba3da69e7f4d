import * as HttpApi from "@effect/platform/HttpApi"
import { PlatformApi } from "@platform/shared"

/**
 * The routes served beside the HttpApi contract (their own routers and front routes).
 * A template ending in `/*` covers everything under it.
 */
export const OTHER_ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ["GET", "/webhook/incoming"],
  ["POST", "/webhook/incoming"],
  ["GET", "/platform/v1/openapi.json"],
  ["GET", "/platform/v1/docs"],
  ["GET", "/platform/v1/media-downloads/:token"],
  ["GET", "/metrics"],
  ["*", "/__sandbox/graph/*"]
]

/** What an unknown path counts as: a metric label must never carry a raw path. */
export const UNMATCHED_ROUTE = "unmatched"

interface Node {
  readonly fixed: Map<string, Node>
  param: Node | undefined
  /** Templates ending here, by method (`*` for any). */
  readonly ends: Map<string, string>
  /** Templates covering everything below here, by method. */
  readonly rest: Map<string, string>
}

const node = (): Node => ({ fixed: new Map(), param: undefined, ends: new Map(), rest: new Map() })

/** `/messages/:id` → `/messages/{id}` (OpenAPI's form); `/graph/*` → `/graph/{path}`. */
const templateOf = (path: string) =>
  path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, "/{path}")

const add = (root: Node, method: string, path: string) => {
  const template = templateOf(path)
  let at = root
  for (const segment of path.split("/").slice(1)) {
    if (segment === "*") {
      at.rest.set(method, template)
      return
    }
    if (segment.startsWith(":")) at = at.param ??= node()
    else {
      let next = at.fixed.get(segment)
      if (next === undefined) at.fixed.set(segment, next = node())
      at = next
    }
  }
  at.ends.set(method, template)
}

const pick = (map: Map<string, string>, method: string) => map.get(method) ?? map.get("*") ?? (method === "HEAD" ? map.get("GET") : undefined)

const find = (at: Node, segments: ReadonlyArray<string>, i: number, method: string): string | undefined => {
  if (i === segments.length) return pick(at.ends, method) ?? pick(at.rest, method)
  const segment = segments[i]!
  const fixed = at.fixed.get(segment)
  const found = (fixed === undefined ? undefined : find(fixed, segments, i + 1, method)) ??
    (at.param === undefined || segment === "" ? undefined : find(at.param, segments, i + 1, method))
  return found ?? pick(at.rest, method)
}

/**
 * Matches a method and a path (query string allowed) to the route template that
 * serves it, the way the router does (a fixed segment before a parameter), in a
 * walk over the path's segments. Built from the HttpApi contract and `OTHER_ROUTES`.
 */
export const makeRouteTemplates = (routes: ReadonlyArray<readonly [method: string, path: string]>) => {
  const root = node()
  for (const [method, path] of routes) add(root, method, path)
  return (method: string, url: string): string => {
    const q = url.indexOf("?")
    const path = q < 0 ? url : url.slice(0, q)
    return find(root, path.split("/").slice(1), 0, method) ?? UNMATCHED_ROUTE
  }
}

const contractRoutes = (): Array<readonly [string, string]> => {
  const routes: Array<readonly [string, string]> = []
  HttpApi.reflect(PlatformApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => void routes.push([endpoint.method, endpoint.path])
  })
  return routes
}

/** The route template of a request to this server (see `makeRouteTemplates`). */
export const routeTemplate = makeRouteTemplates([...contractRoutes(), ...OTHER_ROUTES])
