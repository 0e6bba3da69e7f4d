import { HttpApi, HttpApiBuilder, HttpApiError, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApiEndpoint } from "@effect/platform"
import { PlatformApi } from "@platform/shared"
import { Effect, Option, Predicate, SchemaAST as AST } from "effect"

type Location = "body" | "query" | "path"

interface Detail {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
  readonly input: unknown
  readonly ctx: Record<string, unknown>
}

interface EndpointShape {
  readonly method: string
  readonly pattern: RegExp
  readonly pathKeys: ReadonlySet<string>
  readonly queryKeys: ReadonlySet<string>
  readonly payloadInQuery: boolean
}

const keysOf = (schema: Option.Option<{ readonly ast: AST.AST }>): ReadonlySet<string> =>
  Option.match(schema, {
    onNone: () => new Set<string>(),
    onSome: ({ ast }) => new Set(AST.getPropertySignatures(ast).map((ps: AST.PropertySignature) => String(ps.name)))
  })

const compile = (path: string) =>
  new RegExp("^" + path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, "(?<$1>[^/]+)") + "/?$")

// Built once: HttpApi reports which schema failed only through the issue path,
// so the endpoint's own shape tells a path parameter from a query or body field.
const endpoints: ReadonlyArray<EndpointShape> = (() => {
  const out: Array<EndpointShape> = []
  HttpApi.reflect(PlatformApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
      const payloadInQuery = e.method === "GET" || e.method === "HEAD" || e.method === "DELETE"
      out.push({
        method: e.method,
        pattern: compile(e.path),
        pathKeys: keysOf(e.pathSchema),
        queryKeys: new Set([...keysOf(e.urlParamsSchema), ...(payloadInQuery ? keysOf(e.payloadSchema) : [])]),
        payloadInQuery
      })
    }
  })
  return out
})()

const issueType: Record<string, string> = {
  Missing: "missing",
  Unexpected: "extra_forbidden",
  Type: "type_error",
  Refinement: "value_error",
  Transformation: "value_error",
  Forbidden: "forbidden"
}

const at = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== "object") return null
    current = (current as Record<PropertyKey, unknown>)[key as string]
  }
  return current === undefined ? null : current
}

const body = (detail: ReadonlyArray<Detail>) =>
  HttpServerResponse.unsafeJson({ detail }, { status: 422 })

/** SPEC §7's 422 body for a request whose path, query or body did not decode. */
export const validationResponse = (error: HttpApiError.HttpApiDecodeError) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://localhost")
    const endpoint = endpoints.find((e) => e.method === request.method && e.pattern.test(url.pathname))
    const pathParams = endpoint ? endpoint.pattern.exec(url.pathname)?.groups ?? {} : {}
    const query = Object.fromEntries(url.searchParams)
    const json = endpoint?.payloadInQuery === false
      ? yield* Effect.orElseSucceed(request.json, () => null)
      : null
    const detail = error.issues.map((issue): Detail => {
      const first = issue.path[0]
      const location: Location = first !== undefined && endpoint?.pathKeys.has(String(first))
        ? "path"
        : first !== undefined && endpoint?.queryKeys.has(String(first)) || endpoint?.payloadInQuery
        ? "query"
        : "body"
      const source = location === "path" ? pathParams : location === "query" ? query : json
      return {
        loc: [location, ...issue.path.map((k) => (typeof k === "symbol" ? String(k) : k) as string | number)],
        msg: issue.message,
        type: issueType[issue._tag] ?? "value_error",
        input: at(source, issue.path),
        ctx: {}
      }
    })
    return body(detail)
  })

const malformedJson = body([{
  loc: ["body"],
  msg: "The request body is not valid JSON",
  type: "json_invalid",
  input: null,
  ctx: {}
}])

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  HttpServerResponse.unsafeJson(
    { detail: { code: "not_found", message: `No route for ${request.method} ${request.url.split("?")[0]}` } },
    { status: 404 }
  )

/**
 * Turns the framework's request errors into SPEC's bodies: decode failures and
 * malformed JSON become 422 `{detail:[{loc,msg,type,input,ctx}]}`, unknown
 * routes the coded 404.
 */
export const ValidationMiddleware = HttpApiBuilder.middleware((app) =>
  (app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>).pipe(
    Effect.catchIf(
      (e): e is HttpApiError.HttpApiDecodeError => Predicate.isTagged(e, "HttpApiDecodeError"),
      validationResponse
    ),
    Effect.catchIf(
      (e): e is HttpServerError.RequestError => HttpServerError.isServerError(e) && e._tag === "RequestError",
      (e) => e.reason === "Decode" ? Effect.succeed(malformedJson) : Effect.fail(e)
    ),
    Effect.catchIf(
      (e): e is HttpServerError.RouteNotFound => HttpServerError.isServerError(e) && e._tag === "RouteNotFound",
      (e) => Effect.succeed(notFound(e.request))
    )
  ) as typeof app
)
