import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { PlatformApi, ValidationFailed } from "@platform/shared"
import { Effect, Option, Predicate, SchemaAST as AST } from "effect"
import { overLimit, payloadTooLarge } from "./body-limit.js"

type Location = "body" | "query" | "path" | "header"

type Detail = ValidationFailed["detail"][number]

interface EndpointShape {
  readonly method: string
  readonly pattern: RegExp
  readonly pathKeys: ReadonlySet<string>
  readonly queryKeys: ReadonlySet<string>
  readonly headerKeys: ReadonlySet<string>
  readonly bodyKeys: ReadonlySet<string>
  readonly payloadInQuery: boolean
  /** The framework decodes a body for it (a payload read from the body, not a multipart stream of its own). */
  readonly decodesBody: boolean
}

const keysOf = (schema: Option.Option<{ readonly ast: AST.AST }>): ReadonlySet<string> =>
  Option.match(schema, {
    onNone: () => new Set<string>(),
    onSome: ({ ast }) => new Set(AST.getPropertySignatures(ast).map((ps: AST.PropertySignature) => String(ps.name)))
  })

/** The declared keys of a JSON body; none for a body that is not an object of known keys (multipart, a union, ...). */
const bodyKeysOf = (schema: Option.Option<{ readonly ast: AST.AST }>): ReadonlySet<string> => {
  try {
    return keysOf(schema)
  } catch {
    return new Set<string>()
  }
}

const isMultipartForm = (ast: AST.AST): boolean =>
  AST.isUnion(ast)
    ? ast.types.some(isMultipartForm)
    : HttpApiSchema.getMultipart(ast) !== undefined || HttpApiSchema.getMultipartStream(ast) !== undefined

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
      // As HttpApiBuilder decodes it: a DELETE (block-users) carries its payload in the body.
      const payloadInQuery = !HttpMethod.hasBody(e.method)
      out.push({
        method: e.method,
        pattern: compile(e.path),
        pathKeys: keysOf(e.pathSchema),
        queryKeys: new Set([...keysOf(e.urlParamsSchema), ...(payloadInQuery ? keysOf(e.payloadSchema) : [])]),
        headerKeys: keysOf(e.headersSchema),
        bodyKeys: payloadInQuery ? new Set<string>() : bodyKeysOf(e.payloadSchema),
        payloadInQuery,
        decodesBody: !payloadInQuery && Option.isSome(e.payloadSchema) && !isMultipartForm(e.payloadSchema.value.ast)
      })
    }
  })
  return out
})()

const endpointOf = (method: string, pathname: string) =>
  endpoints.find((e) => e.method === method && e.pattern.test(pathname))

const hasOwn = (value: unknown, key: PropertyKey | undefined): boolean =>
  key !== undefined && typeof value === "object" && value !== null && Object.prototype.hasOwnProperty.call(value, key)

const body = (detail: ReadonlyArray<Detail>) =>
  HttpServerResponse.unsafeJson({ detail }, { status: 422 })

/** SPEC §7's 422 body for a request whose path, query, headers or body did not decode. */
export const validationResponse = (error: HttpApiError.HttpApiDecodeError) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://localhost")
    const endpoint = endpointOf(request.method, url.pathname)
    const pathParams = endpoint ? endpoint.pattern.exec(url.pathname)?.groups ?? {} : {}
    // A parameter given more than once is the list of its values, as the decoder saw it (not the last one).
    const query = Object.fromEntries(
      [...new Set(url.searchParams.keys())].map((k) => {
        const values = url.searchParams.getAll(k)
        return [k, values.length > 1 ? values : values[0]]
      })
    )
    const contentType = (request.headers["content-type"] ?? "").trim()
    const bodyIsJson = /^application\/json\b/i.test(contentType)
    // Only a JSON body was read as text, which the request keeps; other bodies were
    // read as bytes or parts, and reading them again would wait forever.
    const hasBody = endpoint?.payloadInQuery === false
    const json = hasBody && bodyIsJson ? yield* Effect.orElseSucceed(request.json, () => null) : null
    const locationOf = (issue: (typeof error.issues)[number]): Location => {
      const first = issue.path[0]
      if (first !== undefined && endpoint?.pathKeys.has(String(first))) return "path"
      if (first !== undefined && endpoint?.headerKeys.has(String(first))) return "header"
      if (first !== undefined && endpoint?.queryKeys.has(String(first)) || endpoint?.payloadInQuery) return "query"
      // A query parameter the route does not take, beside a body: the query is decoded after the body, so an
      // extra key is the body's only when the body holds it and does not declare it.
      if (
        issue._tag === "Unexpected" && issue.path.length === 1 && url.searchParams.has(String(first)) &&
        (endpoint?.bodyKeys.has(String(first)) || !hasOwn(json, first))
      ) {
        return "query"
      }
      return "body"
    }
    const sources: Record<Location, unknown> = { path: pathParams, query, body: json, header: request.headers }
    const detail = (["path", "query", "header", "body"] as const).flatMap((location) => {
      const issues = error.issues.filter((issue) => locationOf(issue) === location)
      // A body that is not JSON fails as a whole: say what to send, not which fields a form lacked.
      if (location === "body" && issues.length > 0 && hasBody && !bodyIsJson && !/^multipart\/form-data\b/i.test(contentType)) {
        return [notJson(contentType)]
      }
      return ValidationFailed.fromIssues(issues, location, sources[location]).detail
    })
    return body(detail)
  })

const notJson = (contentType: string): Detail => ({
  loc: ["body"],
  msg: `The request body must be JSON, sent with Content-Type: application/json (it was ${contentType === "" ? "missing" : contentType})`,
  type: "content_type",
  input: null,
  ctx: {}
})

const malformedJson = body([{
  loc: ["body"],
  msg: "The request body is not valid JSON",
  type: "json_invalid",
  input: null,
  ctx: {}
}])

const malformedMultipart = body([{
  loc: ["body"],
  msg: "The multipart body could not be parsed",
  type: "multipart_invalid",
  input: null,
  ctx: {}
}])

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  HttpServerResponse.unsafeJson(
    { detail: { code: "not_found", message: `No route for ${request.method} ${request.url.split("?")[0]}` } },
    { status: 404 }
  )

/*
 * The framework reads any body sent as multipart/form-data as a form, whatever the route
 * takes: written to temporary files, outside the JSON body limit, and a 500 (no boundary) or
 * a request left unanswered (a body ended before its closing boundary) when malformed. Only
 * the upload routes take forms (and read them themselves, http/file-form.ts); elsewhere such
 * a body is refused before anything is read, as the other bodies that are not JSON are.
 */
const formWhereJsonIsTaken = (request: HttpServerRequest.HttpServerRequest) => {
  const contentType = (request.headers["content-type"] ?? "").trim()
  if (!/^multipart\//i.test(contentType)) return undefined
  const endpoint = endpointOf(request.method, new URL(request.url, "http://localhost").pathname)
  return endpoint?.decodesBody === true ? body([notJson(contentType)]) : undefined
}

/**
 * Turns the framework's request errors into SPEC's bodies: decode failures and
 * malformed JSON become 422 `{detail:[{loc,msg,type,input,ctx}]}`, unknown
 * routes the coded 404.
 */
export const ValidationMiddleware = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const refused = formWhereJsonIsTaken(request)
    return refused !== undefined
      ? Effect.succeed(refused)
      : app as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>
  }).pipe(
    Effect.catchIf(
      (e): e is HttpApiError.HttpApiDecodeError => Predicate.isTagged(e, "HttpApiDecodeError"),
      validationResponse
    ),
    Effect.catchIf(
      (e): e is HttpServerError.RequestError => HttpServerError.isServerError(e) && e._tag === "RequestError",
      (e) => e.reason !== "Decode" ? Effect.fail(e) : Effect.succeed(overLimit(e) ? payloadTooLarge : malformedJson)
    ),
    // HttpApiBuilder reads a payload with `Effect.orDie(request.json)` (or
    // `request.multipart`), so a malformed body arrives here as a defect, not as a failure.
    Effect.catchSomeDefect((defect) => {
      if (HttpServerError.isServerError(defect) && defect._tag === "RequestError" && defect.reason === "Decode") {
        return Option.some(Effect.succeed(overLimit(defect) ? payloadTooLarge : malformedJson))
      }
      return defect instanceof Multipart.MultipartError && defect.reason === "Parse"
        ? Option.some(Effect.succeed(malformedMultipart))
        : Option.none()
    }),
    Effect.catchIf(
      (e): e is HttpServerError.RouteNotFound => HttpServerError.isServerError(e) && e._tag === "RouteNotFound",
      (e) => Effect.succeed(notFound(e.request))
    )
  ) as typeof app
)
