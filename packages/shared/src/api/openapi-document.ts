import { frontRoutePaths, frontRouteSchemas, frontRouteTags } from "./openapi-front-routes.js"
import { routeKey, type RouteSecurity } from "./route-table.js"

/** An OpenAPI document as JSON (what `OpenApi.Transform` hands over). */
type Json = Record<string, any>

/** The schema `HttpApi` documents for a request it could not decode: the server answers those 422 (SPEC §7), never 400. */
const DECODE_ERROR = "#/components/schemas/HttpApiDecodeError"
/** The cross-origin 403: only a request with the dashboard cookie can get it. */
const CSRF = "#/components/schemas/CsrfRejectedBody"
/** The 503 of an unreachable database, which the contract declares on every operation (platform-api.ts). */
const DATABASE_UNAVAILABLE = "#/components/schemas/DatabaseUnavailableBody"
/** The 503 of a send whose outcome waits for the database (POST /messages). */
const OUTCOME_PENDING = "#/components/schemas/SendOutcomePendingBody"
/** Probes that never reach the database through a request's statements: `/healthz` none, `/readyz` its own 503. */
const PROBES: ReadonlySet<string> = new Set(["GET /healthz", "GET /readyz"])

/** How HttpApi describes its 400 `HttpApiDecodeError`, which this API never answers. */
const DECODE_DESCRIPTION = "The request did not match the expected schema"

/** What an error status means on this API, for responses the contract leaves described as "Error". */
const ERROR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "400": "Bad request: the operation does not apply (for example chat_only on a social channel)",
  "401": "Unauthorized: no credential, or an invalid, expired or revoked one",
  "403": "Forbidden: the key lacks the required scope, the role or plan does not allow it, or a cookie request is cross-origin",
  "404": "Not found: absent or another account's",
  "409": "Conflict: the resource is not in a state that allows this",
  "422": "Validation failed (SPEC §7 shape: detail[] of loc, msg, type, input, ctx) or a coded 422",
  "429": "Too many requests: the key's rate limit (retry after Retry-After seconds) or the monthly template quota",
  "501": "Not implemented: the upstream manages this operation elsewhere (display-name submit)",
  "502": "The upstream (Meta's Graph API) failed; the body says how",
  "503": "Service unavailable: the database is unreachable (database_unavailable: nothing was done) or, on a send, " +
    "outcome_pending (the upstream accepted the message; it is recorded when the database returns); retry after Retry-After seconds"
}

/** X-RateLimit-* go on every response to an API key (DESIGN §5); a 429 adds Retry-After. */
const HEADERS: Readonly<Record<string, string>> = {
  "X-RateLimit-Limit": "Requests the key may make per 60-second window (on every response to an API key)",
  "X-RateLimit-Remaining": "Requests left in the current window",
  "X-RateLimit-Reset": "Unix epoch seconds when the window resets",
  "Retry-After": "Seconds to wait before retrying (a 429 of the rate limit, a 503)"
}
const headerRefs = (names: ReadonlyArray<string>) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
const RATE_LIMIT_HEADERS = headerRefs(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])
const RETRY_AFTER = headerRefs(["Retry-After"])

/** `/a/{b}` of OpenAPI back to the `/a/:b` of the HttpApi. */
const routePath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1")

/** Whether a response schema is, or has the member, `ref`. */
const mentions = (schema: Json | undefined, ref: string): boolean =>
  schema !== undefined && (schema.$ref === ref || (Array.isArray(schema.anyOf) && schema.anyOf.some((m: Json) => m.$ref === ref)))

/** A response schema without the member `ref`; undefined when nothing else is left. */
const without = (schema: Json, ref: string): Json | undefined => {
  if (schema.$ref === ref) return undefined
  if (!Array.isArray(schema.anyOf)) return schema
  const members = schema.anyOf.filter((m: Json) => m.$ref !== ref)
  return members.length === 0 ? undefined : members.length === 1 ? members[0] : { ...schema, anyOf: members }
}

/** Component schemas no longer reachable from the paths (HttpApiDecodeError and its Issue) are dropped. */
const pruneComponents = (spec: Json) => {
  const schemas: Json = spec.components.schemas
  const reachable = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== "object") return
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/components/schemas/")) {
        const name = value.slice("#/components/schemas/".length)
        if (!reachable.has(name)) {
          reachable.add(name)
          visit(schemas[name])
        }
      } else visit(value)
    }
  }
  visit(spec.paths)
  for (const name of Object.keys(schemas)) if (!reachable.has(name)) delete schemas[name]
}

/**
 * The generated OpenAPI document made to say what the server does:
 * - a request that does not decode is 422 in SPEC §7's shape (the server's validation
 *   middleware), so the 400 `HttpApiDecodeError` HttpApi documents is removed;
 * - each `/platform/v1` operation states its scope and whether the dashboard cookie is
 *   accepted (security: the key, or the key or the cookie), and documents the
 *   X-RateLimit-* headers (and Retry-After on 429); a key-only route drops the
 *   cross-origin 403, which only cookie requests can get;
 * - error responses left as "Error" say what the status means here;
 * - the routes outside the contract (/webhook/incoming, the media download links) are
 *   added (openapi-front-routes.ts), so the document describes every route served.
 * - every operation but the probes declares the 503 `database_unavailable` (and a send
 *   its 503 `outcome_pending`) with Retry-After.
 */
export const documentContract = (spec: Json, routes: ReadonlyArray<RouteSecurity>): Json => {
  const doc = structuredClone(spec)
  const security = new Map(routes.map((r) => [routeKey(r.method, r.path), r]))
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(operations)) {
      const route = security.get(routeKey(method.toUpperCase(), routePath(path)))
      const probe = PROBES.has(routeKey(method.toUpperCase(), path))
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const media = response.content?.["application/json"]
        if (media !== undefined) {
          const schema = without(media.schema, DECODE_ERROR)
          const kept = schema !== undefined && probe ? without(schema, DATABASE_UNAVAILABLE) : schema
          if (kept === undefined) {
            delete op.responses[status]
            continue
          }
          media.schema = route !== undefined && !route.cookie ? without(kept, CSRF) ?? kept : kept
        }
        // A 400 that also carried the (removed) decode error kept that error's description.
        const generic = response.description === "Error" || response.description === DECODE_DESCRIPTION
        if (generic && ERROR_DESCRIPTIONS[status] !== undefined) {
          response.description = ERROR_DESCRIPTIONS[status]
        }
        // Rate limiting runs once the key is known: a 401 has no X-RateLimit-* headers.
        if (route !== undefined && status !== "401") {
          response.headers = { ...response.headers, ...RATE_LIMIT_HEADERS, ...(status === "429" ? RETRY_AFTER : {}) }
        }
        const retry = media?.schema
        if (status === "503" && (mentions(retry, DATABASE_UNAVAILABLE) || mentions(retry, OUTCOME_PENDING))) {
          response.headers = { ...response.headers, ...RETRY_AFTER }
        }
      }
      if (route !== undefined && route.scope !== null) {
        op.security = route.cookie ? [{ apiKey: [] }, { cookie: [] }] : [{ apiKey: [] }]
        const access = `Scope \`${route.scope}\`; ${route.cookie ? "API key or dashboard session cookie" : "API key only"}.`
        op.description = op.description === undefined ? access : `${op.description}\n\n${access}`
      }
    }
  }
  doc.paths = { ...doc.paths, ...structuredClone(frontRoutePaths) }
  doc.components.schemas = { ...doc.components.schemas, ...structuredClone(frontRouteSchemas) }
  doc.tags = [...(doc.tags ?? []), ...frontRouteTags]
  doc.components.headers = Object.fromEntries(
    Object.entries(HEADERS).map(([name, description]) => [name, { description, schema: { type: "integer" } }])
  )
  pruneComponents(doc)
  return doc
}
