import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { Cause, Duration, Effect, Exit, Option, ParseResult, Redacted, Schedule, Schema, type Scope } from "effect"
import { observeUpstreamCall } from "../telemetry/metrics.js"
import { type GraphAnswer, type GraphExchange, graphExchange } from "./graph-transport.js"
import type { ChannelCredentials } from "./credentials.js"
import {
  fromGraphResponse,
  META_ERROR_CODES,
  redactSecrets,
  UpstreamError,
  UpstreamRequestInvalid,
  UpstreamTimeout
} from "./errors.js"

export interface GraphClientOptions {
  /** Deadline of an ordinary call; 10 s. */
  readonly timeoutMs?: number | undefined
  /** Deadline of an upload or download; 60 s. */
  readonly uploadTimeoutMs?: number | undefined
  /** First backoff delay of an idempotent retry; doubles each time. */
  readonly retryBaseMs?: number | undefined
  /** Retries of an idempotent call after the first attempt. */
  readonly retries?: number | undefined
}

export interface GraphRequest {
  /** Stable operation name used in errors and log annotations, e.g. `messages.send`. */
  readonly operation: string
  readonly method: "GET" | "POST" | "DELETE"
  /** Path under `/{version}`, e.g. `/123/messages`; or an absolute `url`. */
  readonly path?: string | undefined
  readonly url?: string | undefined
  readonly token?: Redacted.Redacted<string> | undefined
  /** `OAuth` for the resumable upload endpoint, `Bearer` everywhere else. */
  readonly authScheme?: "Bearer" | "OAuth" | undefined
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>> | undefined
  readonly json?: unknown
  readonly form?: Readonly<Record<string, string>> | undefined
  readonly setBody?: ((request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest) | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly long?: boolean | undefined
  /** Extra values (codes, app secret) to scrub from anything that leaves this module. */
  readonly secrets?: ReadonlyArray<string> | undefined
  /**
   * Meta answers a mixed success of a batch (block_users, code 139100) with HTTP 400
   * and a body that still carries the per-item result beside `error`: such an error
   * answer is decoded with the call's schema when it fits, and fails as usual otherwise.
   */
  readonly partialResultOnError?: boolean | undefined
}

export type GraphFailure = UpstreamError | UpstreamTimeout

export interface GraphClient {
  readonly baseUrl: string
  readonly version: string
  /** Performs the call and decodes the JSON answer; GETs are retried on 5xx and time-outs. */
  readonly call: <A, I>(request: GraphRequest, schema: Schema.Schema<A, I>) => Effect.Effect<A, GraphFailure>
  /** Performs the call and hands over the open response (status already checked) for streaming. */
  readonly open: (request: GraphRequest) => Effect.Effect<HttpClientResponse.HttpClientResponse, GraphFailure, Scope.Scope>
}

const DEFAULTS = { timeoutMs: 10_000, uploadTimeoutMs: 60_000, retryBaseMs: 200, retries: 3 }

/** One attempt in the upstream metrics: outcome `ok`, the error's kind or `timeout`; Meta's code when it is a known one. */
const observed = <A, R>(operation: string, attempt: Effect.Effect<A, GraphFailure, R>): Effect.Effect<A, GraphFailure, R> =>
  Effect.suspend(() => {
    const started = performance.now()
    return Effect.onExit(attempt, (exit) =>
      Effect.sync(() => {
        const seconds = (performance.now() - started) / 1000
        if (Exit.isSuccess(exit)) return observeUpstreamCall(operation, "ok", "none", seconds)
        const failure = Cause.failureOption(exit.cause)
        if (Option.isNone(failure)) {
          return observeUpstreamCall(operation, Cause.isInterruptedOnly(exit.cause) ? "interrupted" : "defect", "none", seconds)
        }
        const e = failure.value
        if (e._tag === "UpstreamTimeout") return observeUpstreamCall(operation, "timeout", "none", seconds)
        const code = e.meta_code === null ? "none" : e.meta_code in META_ERROR_CODES ? String(e.meta_code) : "other"
        observeUpstreamCall(operation, e.kind, code, seconds)
      }))
  })

export const makeGraphClient = (options: {
  readonly http: HttpClient.HttpClient
  readonly baseUrl: string
  readonly version: string
  readonly appSecret: Redacted.Redacted<string>
  readonly tuning?: GraphClientOptions | undefined
}): GraphClient => {
  const tuning = { ...DEFAULTS, ...stripUndefined(options.tuning ?? {}) }
  const http = options.http
  const baseUrl = options.baseUrl.replace(/\/+$/, "")

  const secretsOf = (req: GraphRequest): Array<string> => [
    ...(req.token ? [Redacted.value(req.token)] : []),
    Redacted.value(options.appSecret),
    ...(req.secrets ?? [])
  ]

  const build = (req: GraphRequest): HttpClientRequest.HttpClientRequest => {
    const url = req.url ?? `${baseUrl}/${options.version}${req.path ?? ""}`
    const make = req.method === "GET"
      ? HttpClientRequest.get
      : req.method === "POST"
      ? HttpClientRequest.post
      : HttpClientRequest.del
    let request = make(url).pipe(HttpClientRequest.acceptJson)
    if (req.query) {
      const params: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.query)) if (v !== undefined) params[k] = String(v)
      request = HttpClientRequest.setUrlParams(request, params)
    }
    if (req.token) {
      request = HttpClientRequest.setHeader(request, "authorization", `${req.authScheme ?? "Bearer"} ${Redacted.value(req.token)}`)
    }
    if (req.headers) request = HttpClientRequest.setHeaders(request, req.headers)
    if (req.json !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, req.json)
    if (req.form) request = HttpClientRequest.bodyUrlParams(request, req.form)
    if (req.setBody) request = req.setBody(request)
    return request
  }

  /** An error of ours about the call (no answer, or one we cannot use): nothing of Meta's in it. */
  const callError = (req: GraphRequest, kind: UpstreamError["kind"], message: string, httpStatus: number | null) =>
    new UpstreamError({
      kind,
      operation: req.operation,
      meta_code: null,
      meta_subcode: null,
      meta_title: null,
      message: redactSecrets(message, secretsOf(req)),
      details: null,
      fbtrace_id: null,
      http_status: httpStatus
    })

  const unreachable = (req: GraphRequest, reason: string, cause: unknown): UpstreamError =>
    callError(
      req,
      "network",
      `Upstream unreachable for ${req.operation} (${reason}${cause instanceof Error ? `: ${cause.message}` : ""})`,
      null
    )

  const unreadable = (req: GraphRequest, status: number): UpstreamError =>
    callError(req, "unexpected_response", `Upstream answer to ${req.operation} could not be read`, status)

  const transportError = (req: GraphRequest, e: HttpClientError): UpstreamError =>
    e._tag === "ResponseError" && e.reason === "Decode" ? unreadable(req, e.response.status) : unreachable(req, e.reason, e.cause)

  /** An error answer's body: its JSON, or its text when it is not JSON (the status alone classifies it). */
  const errorBody = (text: string): unknown => {
    try {
      return JSON.parse(text) as unknown
    } catch {
      return text
    }
  }

  const failWith = (req: GraphRequest, answer: GraphAnswer, body: unknown) =>
    Effect.fail(fromGraphResponse({
      operation: req.operation,
      status: answer.status,
      body,
      traceHeader: answer.headers["x-fb-trace-id"] ?? null,
      secrets: secretsOf(req)
    }))

  const failFrom = (req: GraphRequest, res: HttpClientResponse.HttpClientResponse): Effect.Effect<never, UpstreamError> =>
    Effect.flatMap(res.text.pipe(Effect.orElseSucceed(() => "")), (text) =>
      failWith(req, { status: res.status, headers: res.headers, text }, errorBody(text)))

  /** The call's URL, headers and serialised body, for `graphExchange`. */
  const exchangeOf = (req: GraphRequest): GraphExchange => {
    const url = new URL(req.url ?? `${baseUrl}/${options.version}${req.path ?? ""}`)
    if (req.query) for (const [k, v] of Object.entries(req.query)) if (v !== undefined) url.searchParams.append(k, String(v))
    const headers: Record<string, string> = { accept: "application/json" }
    if (req.token) headers.authorization = `${req.authScheme ?? "Bearer"} ${Redacted.value(req.token)}`
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v
    if (req.json !== undefined) {
      headers["content-type"] = "application/json"
      return { method: req.method, url, headers, body: JSON.stringify(req.json) }
    }
    if (req.form) {
      headers["content-type"] = "application/x-www-form-urlencoded"
      return { method: req.method, url, headers, body: new URLSearchParams(req.form).toString() }
    }
    return { method: req.method, url, headers }
  }

  /**
   * The whole answer of a call: over `graphExchange` (node:http), or through the
   * HttpClient when the call builds its own body (`setBody`: uploads).
   */
  const answerOf = (req: GraphRequest): Effect.Effect<GraphAnswer, UpstreamError> =>
    req.setBody === undefined
      ? graphExchange(exchangeOf(req)).pipe(Effect.mapError((e) => unreachable(req, "Transport", e.cause)))
      : Effect.scoped(
        http.execute(build(req)).pipe(
          Effect.flatMap((res) => Effect.map(res.text, (text): GraphAnswer => ({ status: res.status, headers: res.headers, text })))
        )
      ).pipe(Effect.mapError((e) => transportError(req, e)))

  const deadline = (req: GraphRequest) => req.long ? tuning.uploadTimeoutMs : tuning.timeoutMs

  const guard = <A, R>(req: GraphRequest, effect: Effect.Effect<A, GraphFailure | HttpClientError, R>) =>
    effect.pipe(
      Effect.catchIf(
        (e): e is HttpClientError => e._tag === "RequestError" || e._tag === "ResponseError",
        (e) => Effect.fail(transportError(req, e))
      ),
      Effect.timeoutFail({
        duration: Duration.millis(deadline(req)),
        onTimeout: () =>
          new UpstreamTimeout({
            operation: req.operation,
            timeout_ms: deadline(req),
            message: `Upstream did not answer ${req.operation} within ${deadline(req)} ms`
          })
      })
    )

  const retryable = (e: GraphFailure) => e._tag === "UpstreamTimeout" || e.transient

  const withPolicy = <A>(req: GraphRequest, once: Effect.Effect<A, GraphFailure>) => {
    const logged = observed(req.operation, once).pipe(
      Effect.tapError((e) =>
        Effect.logWarning("upstream call failed").pipe(
          Effect.annotateLogs({
            error: e._tag,
            kind: e._tag === "UpstreamError" ? e.kind : "timeout",
            meta_code: e._tag === "UpstreamError" ? String(e.meta_code) : "",
            reason: e.message
          })
        )
      )
    )
    const policy = req.method === "GET"
      ? logged.pipe(Effect.retry({
        schedule: Schedule.exponential(Duration.millis(tuning.retryBaseMs)).pipe(
          Schedule.intersect(Schedule.recurs(tuning.retries))
        ),
        while: retryable
      }))
      : logged
    return Effect.logDebug("upstream call").pipe(
      Effect.zipRight(policy),
      Effect.annotateLogs({ operation: req.operation, method: req.method, path: req.path ?? "(media url)" }),
      Effect.withSpan(`Upstream.${req.operation}`)
    )
  }

  const call = <A, I>(req: GraphRequest, schema: Schema.Schema<A, I>): Effect.Effect<A, GraphFailure> => {
    const decode: (u: unknown) => Effect.Effect<A, ParseResult.ParseError> = Schema.decodeUnknown(schema)
    const once = guard(
      req,
      answerOf(req).pipe(
        Effect.flatMap((answer): Effect.Effect<unknown, GraphFailure> => {
          if (answer.status >= 400) {
            const body = errorBody(answer.text)
            return req.partialResultOnError === true && Option.isSome(Schema.decodeUnknownOption(schema)(body))
              ? Effect.succeed(body)
              : failWith(req, answer, body)
          }
          try {
            return Effect.succeed(JSON.parse(answer.text) as unknown)
          } catch {
            return Effect.fail(unreadable(req, answer.status))
          }
        }),
        Effect.flatMap((body) =>
          decode(body).pipe(
            Effect.mapError((e: ParseResult.ParseError) =>
              callError(
                req,
                "unexpected_response",
                `Upstream answer to ${req.operation} has an unexpected shape at ${
                  ParseResult.ArrayFormatter.formatErrorSync(e).slice(0, 5).map((i) => i.path.join(".") || "(root)").join(", ")
                }`,
                200
              )
            )
          )
        )
      )
    )
    return withPolicy(req, once)
  }

  const open = (req: GraphRequest) =>
    Effect.logDebug("upstream call").pipe(
      Effect.zipRight(observed(req.operation, guard(
        req,
        http.execute(build(req)).pipe(
          Effect.flatMap((res): Effect.Effect<HttpClientResponse.HttpClientResponse, GraphFailure> =>
            res.status >= 400 ? failFrom(req, res) : Effect.succeed(res)
          )
        )
      ))),
      Effect.annotateLogs({ operation: req.operation, method: req.method })
    )

  return { baseUrl, version: options.version, call, open }
}

function stripUndefined<T extends object>(o: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never
}

/** Fails with chat_only unless the credentials are a chat channel's with a phone number id. */
export const requireChat = (creds: ChannelCredentials, operation: string) =>
  creds.kind !== "chat"
    ? Effect.fail(new UpstreamRequestInvalid({ code: "chat_only", message: `${operation} is supported only on chat channels` }))
    : creds.phone_number_id
    ? Effect.succeed(creds.phone_number_id)
    : Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: `${operation} needs the channel's phone_number_id` }))

export const requireWaba = (creds: ChannelCredentials, operation: string) =>
  creds.kind !== "chat"
    ? Effect.fail(new UpstreamRequestInvalid({ code: "chat_only", message: `${operation} is supported only on chat channels` }))
    : creds.waba_id
    ? Effect.succeed(creds.waba_id)
    : Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: `${operation} needs the channel's waba_id` }))

export const requireSocial = (creds: ChannelCredentials, operation: string) =>
  creds.social_id
    ? Effect.succeed(creds.social_id)
    : Effect.fail(new UpstreamRequestInvalid({ code: "invalid_request", message: `${operation} needs the channel's social_id` }))

/** `{success: true}` answers. */
export const Success = Schema.Struct({ success: Schema.Boolean })
