import { createFetch } from "ofetch"
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  PlatformError,
  UnexpectedResponseError,
  isTemplateQuota,
  parseRetryAfter
} from "./errors.js"

// package.json's version: defined by the build (tsup.config.ts) and by vitest, which
// runs this source (vitest.shared.ts); anything else running the source says so.
declare const __SDK_VERSION__: string | undefined

/** The SDK version, sent in `User-Agent`. */
export const VERSION: string = typeof __SDK_VERSION__ === "string" ? __SDK_VERSION__ : "0.0.0-source"

/** Per-call options accepted as the last argument of every method. */
export interface RequestOptions {
  /** Milliseconds before one attempt is abandoned (default: the client's `timeout`). */
  readonly timeout?: number
  /** How many times a retryable failure is retried (default: the client's `maxRetries`). */
  readonly maxRetries?: number
  /** Idempotency-Key sent with the request and reused on every retry; makes `messages.send` retryable (the only route that deduplicates by it). */
  readonly idempotencyKey?: string
  /** Aborts the request (and any pending retry) when signalled. */
  readonly signal?: AbortSignal
  /** Extra headers; a `null` value removes a default header. */
  readonly headers?: Readonly<Record<string, string | null | undefined>>
}

/** Rate-limit state read from the `X-RateLimit-*` headers of the last response. */
export interface RateLimitInfo {
  /** Requests allowed in the 60-second window. */
  readonly limit: number
  /** Requests left in the current window. */
  readonly remaining: number
  /** Unix epoch seconds at which the window resets. */
  readonly reset: number
}

/** HTTP methods the API uses. */
export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE"

/** Query values; arrays are sent comma-separated, `undefined`/`null` are left out. */
export type QueryValue = string | number | boolean | ReadonlyArray<string> | null | undefined

/** One logical API call, before retries. */
export interface FinalRequest {
  readonly method: HttpMethod
  readonly path: string
  readonly query?: Readonly<Record<string, QueryValue>> | undefined
  readonly body?: unknown
  /**
   * The route deduplicates by Idempotency-Key (POST /messages): one is generated when the caller gives none, and a
   * request carrying one is safe to repeat. Elsewhere a caller's key is sent but makes no retry safe: the server
   * ignores it there, so a repeated POST that had been applied would be applied twice.
   */
  readonly autoIdempotencyKey?: boolean
  /** The POST is naturally idempotent (mark-read, resume), so retrying it is safe without a key. */
  readonly idempotent?: boolean
  /** Return the response body as a byte stream (Server-Sent Events). */
  readonly stream?: boolean
}

/** A completed HTTP exchange. */
export interface APIResponse<T> {
  readonly data: T
  readonly response: Response
  readonly requestId: string | undefined
}

/** Reads a variable from the environment on Node, Bun and Deno; undefined elsewhere (edge, browsers). */
export const readEnv = (name: string): string | undefined => {
  const g = globalThis as { process?: { env?: Record<string, string | undefined> }; Deno?: { env?: { get?: (k: string) => string | undefined } } }
  try {
    const v = g.process?.env?.[name] ?? g.Deno?.env?.get?.(name)
    return v === undefined || v.trim() === "" ? undefined : v.trim()
  } catch {
    return undefined
  }
}

/** Default backoff before retry n (1, 2, 4, 8, 16 s; mirrors `CLIENT_BACKOFF_SECONDS` of @platform/shared). */
export const BACKOFF_SECONDS: ReadonlyArray<number> = [1, 2, 4, 8, 16]
/** Relative jitter applied to the backoff (mirrors `CLIENT_BACKOFF_JITTER`). */
export const BACKOFF_JITTER = 0.25
/** A `Retry-After` longer than this is not waited for; the error is thrown instead. */
export const MAX_RETRY_AFTER_SECONDS = 60

/** What one attempt ended with, as seen by the retry policy. */
export type AttemptOutcome =
  | { readonly kind: "response"; readonly status: number; readonly body: unknown }
  | { readonly kind: "connection" }

/**
 * The retry policy: 429 rate limit always; 5xx, timeouts and connection errors only when the call is safe to repeat.
 * `replayed`: the route keeps its outcome with the Idempotency-Key (POST /messages), so a retry gets the same answer.
 */
export const isRetryable = (outcome: AttemptOutcome, safeToRepeat: boolean, replayed = false): boolean => {
  if (outcome.kind === "connection") return safeToRepeat
  const { status, body } = outcome
  if (status === 429) return !isTemplateQuota(body)
  if (status === 409) {
    const detail = (body as { detail?: { code?: unknown } } | null)?.detail
    return safeToRepeat && typeof detail === "object" && detail?.code === "idempotency_key_in_flight"
  }
  if (status === 408) return safeToRepeat
  if (status === 501) return false
  // A send's 502 in the upstream envelope is the upstream's answer, kept with the Idempotency-Key and
  // replayed to a retry: repeating it only waits. Only the platform's own throughput throttle
  // (`upstream_throttled`, decided before any upstream call) frees the key for a later try.
  if (status === 502 && replayed && isUpstreamEnvelope(body)) return body.error === "upstream_throttled"
  return status >= 500 && safeToRepeat
}

/** The body of a 502 the platform answered for the upstream (SPEC §7): an `error` classification and `meta_code`. */
const isUpstreamEnvelope = (body: unknown): body is { readonly error: string } =>
  typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string" && "meta_code" in body

/** Milliseconds to wait before retry number `retry` (0-based): `Retry-After` when given, else exponential backoff with ±25% jitter. */
export const retryDelayMs = (retry: number, retryAfterSeconds: number | undefined, random: () => number = Math.random): number => {
  if (retryAfterSeconds !== undefined) return Math.round(retryAfterSeconds * 1000)
  const base = BACKOFF_SECONDS[Math.min(retry, BACKOFF_SECONDS.length - 1)]! * 1000
  return Math.round(base * (1 + (random() * 2 - 1) * BACKOFF_JITTER))
}

/** Timer functions the retry loop uses; replaceable in tests. */
export const timers = {
  /** Waits `ms` milliseconds, rejecting early with APIUserAbortError when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new APIUserAbortError())
      const onAbort = () => {
        clearTimeout(timer)
        reject(new APIUserAbortError())
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort)
        resolve()
      }, ms)
      signal?.addEventListener("abort", onAbort, { once: true })
    })
  },
  random: (): number => Math.random()
}

/** A fresh Idempotency-Key (UUID v4 where WebCrypto is available). */
export const newIdempotencyKey = (): string => {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto
  if (c?.randomUUID) return c.randomUUID()
  return `${Date.now().toString(16)}-${Math.random().toString(16).slice(2)}-${Math.random().toString(16).slice(2)}`
}

const parseRateLimit = (headers: Headers): RateLimitInfo | undefined => {
  const limit = headers.get("x-ratelimit-limit")
  const remaining = headers.get("x-ratelimit-remaining")
  const reset = headers.get("x-ratelimit-reset")
  if (limit === null || remaining === null || reset === null) return undefined
  const info = { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) }
  return Object.values(info).every(Number.isFinite) ? info : undefined
}

const serializeQuery = (query: Readonly<Record<string, QueryValue>> | undefined): string => {
  if (!query) return ""
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue
    if (Array.isArray(v)) {
      if (v.length > 0) params.set(k, v.join(","))
    } else params.set(k, String(v))
  }
  const s = params.toString()
  return s === "" ? "" : `?${s}`
}

/** Settings of the HTTP core. */
export interface CoreOptions {
  readonly apiKey: string
  readonly baseUrl: string
  readonly timeout: number
  readonly maxRetries: number
  readonly fetch?: typeof globalThis.fetch | undefined
  readonly defaultHeaders?: Readonly<Record<string, string>> | undefined
  readonly onRetry?: ((retry: RetryNotice) => void) | undefined
  readonly signal?: AbortSignal | undefined
}

/** What the client is about to wait for before retrying a failed attempt (the `onRetry` option). */
export interface RetryNotice {
  /** The HTTP status of the failed attempt; undefined for a connection failure or timeout. */
  readonly status: number | undefined
  /** How long the client waits before the next attempt, in milliseconds. */
  readonly delayMs: number
  /** Which retry comes next, from 1. */
  readonly retry: number
  /** The request's method and path. */
  readonly method: HttpMethod
  readonly path: string
}

type RawResponse = Response & { _data?: unknown }

/** The innermost cause of a network failure, as `CODE message` (ECONNREFUSED, ENOTFOUND...). */
const rootCause = (error: unknown): string => {
  let e = error as { cause?: unknown; code?: unknown; message?: unknown } | undefined
  for (let i = 0; i < 5 && e?.cause !== undefined && e.cause !== null; i++) e = e.cause as typeof e
  const code = typeof e?.code === "string" ? e.code : undefined
  const message = typeof e?.message === "string" ? e.message : String(e)
  return code && !message.includes(code) ? `${code} ${message}` : message
}

/** An error body: JSON when it parses, else the text; null when empty. */
const lenientBody = (text: string | undefined): unknown => {
  if (text === undefined || text === "") return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** Reads the error body of a streamed request. */
const readErrorBody = async (response: Response): Promise<unknown> => {
  try {
    return lenientBody(await response.text())
  } catch {
    return null
  }
}

/** Statuses that carry no body by definition. */
const NO_BODY = new Set([204, 205])
const JSON_TYPE = /^application\/(?:[\w!#$%&*.^`~-]+\+)?json\s*(?:;|$)/i
const EVENT_STREAM_TYPE = /^text\/event-stream\s*(?:;|$)/i

/** The HTTP core: builds requests, retries with backoff, maps failures to the SDK's error classes. */
export class APIClient {
  /** The API key sent as `X-API-Key`. */
  readonly apiKey: string
  /** The API origin, such as `http://localhost:8080`. */
  readonly baseUrl: string
  /** Default per-attempt timeout in milliseconds. */
  readonly timeout: number
  /** Default number of retries. */
  readonly maxRetries: number
  readonly #defaultHeaders: Readonly<Record<string, string>>
  readonly #onRetry: ((retry: RetryNotice) => void) | undefined
  readonly #signal: AbortSignal | undefined
  readonly #fetch: ReturnType<typeof createFetch>
  #rateLimit: RateLimitInfo | undefined
  #lastRequestId: string | undefined

  constructor(options: CoreOptions) {
    this.apiKey = options.apiKey
    this.baseUrl = checkBaseUrl(options.baseUrl)
    this.timeout = options.timeout
    this.maxRetries = options.maxRetries
    this.#defaultHeaders = options.defaultHeaders ?? {}
    this.#onRetry = options.onRetry
    this.#signal = options.signal
    const custom = options.fetch
    const lazyFetch: typeof globalThis.fetch = (input, init) => (custom ?? globalThis.fetch)(input, init)
    this.#fetch = createFetch({ fetch: lazyFetch })
  }

  /** Rate-limit state from the last response that carried `X-RateLimit-*` headers. */
  get rateLimit(): RateLimitInfo | undefined {
    return this.#rateLimit
  }

  /** The `X-Request-Id` of the last response. */
  get lastRequestId(): string | undefined {
    return this.#lastRequestId
  }

  /** Performs one logical call (with retries) and returns the parsed body. */
  async request<T>(req: FinalRequest, options: RequestOptions = {}): Promise<T> {
    return (await this.requestWithResponse<T>(req, options)).data
  }

  /** Performs one logical call (with retries) and returns the body with its Response. */
  async requestWithResponse<T>(req: FinalRequest, given: RequestOptions = {}): Promise<APIResponse<T>> {
    const options = given.signal === undefined && this.#signal !== undefined ? { ...given, signal: this.#signal } : given
    const maxRetries = Math.max(0, options.maxRetries ?? this.maxRetries)
    const idempotencyKey = options.idempotencyKey ?? (req.autoIdempotencyKey ? newIdempotencyKey() : undefined)
    const safeToRepeat = req.method === "GET" || req.method === "DELETE" || req.idempotent === true || req.autoIdempotencyKey === true
    const url = `${this.baseUrl}${req.path}${serializeQuery(req.query)}`
    const headers = this.#headers(options, idempotencyKey)
    for (let retry = 0; ; retry++) {
      const result = await this.#attempt<T>(url, req, headers, options)
      if (result.kind === "ok") return result.value
      const outcome: AttemptOutcome = result.kind === "http" ? { kind: "response", status: result.error.status, body: result.error.body } : { kind: "connection" }
      const retryAfter = result.kind === "http" ? parseRetryAfter(result.error.headers) : undefined
      const canWait = retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_SECONDS
      if (retry >= maxRetries || !canWait || !isRetryable(outcome, safeToRepeat, req.autoIdempotencyKey === true)) throw result.error
      const delayMs = retryDelayMs(retry, retryAfter, timers.random)
      this.#onRetry?.({ status: result.kind === "http" ? result.error.status : undefined, delayMs, retry: retry + 1, method: req.method, path: req.path })
      await timers.sleep(delayMs, options.signal)
    }
  }

  #headers(options: RequestOptions, idempotencyKey: string | undefined): Headers {
    const headers = new Headers({
      accept: "application/json",
      "x-api-key": this.apiKey,
      "user-agent": `platform-sdk/${VERSION}`,
      ...this.#defaultHeaders
    })
    if (idempotencyKey !== undefined) headers.set("idempotency-key", idempotencyKey)
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (v === null) headers.delete(k)
      else if (v !== undefined) headers.set(k, v)
    }
    return headers
  }

  async #attempt<T>(
    url: string,
    req: FinalRequest,
    headers: Headers,
    options: RequestOptions
  ): Promise<
    | { kind: "ok"; value: APIResponse<T> }
    | { kind: "http"; error: APIError }
    | { kind: "connection"; error: APIConnectionError }
  > {
    const userSignal = options.signal
    if (userSignal?.aborted) throw new APIUserAbortError()
    const controller = new AbortController()
    const onAbort = () => controller.abort(userSignal?.reason)
    userSignal?.addEventListener("abort", onAbort, { once: true })
    let timedOut = false
    const timeoutMs = options.timeout ?? this.timeout
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error("timeout"))
    }, timeoutMs)
    let response: RawResponse
    try {
      const init: Record<string, unknown> = {
        method: req.method,
        headers,
        retry: false,
        ignoreResponseError: true,
        signal: controller.signal
      }
      if (req.body !== undefined) init.body = req.body
      // Bodies are read as text and parsed here, strictly for success answers (ofetch's destr would pass an HTML page through).
      init.responseType = req.stream ? "stream" : "text"
      response = (await this.#fetch.raw(url, init)) as RawResponse
    } catch (cause) {
      if (userSignal?.aborted) throw new APIUserAbortError()
      if (timedOut) return { kind: "connection", error: new APIConnectionTimeoutError(`Request timed out after ${timeoutMs} ms.`) }
      return { kind: "connection", error: new APIConnectionError(`Connection error: ${rootCause(cause)}.`, { cause }) }
    } finally {
      clearTimeout(timer)
      // A stream keeps the caller's signal linked so aborting stops reading the body too.
      if (!req.stream) userSignal?.removeEventListener("abort", onAbort)
    }
    const requestId = response.headers.get("x-request-id") ?? undefined
    this.#lastRequestId = requestId
    const rateLimit = parseRateLimit(response.headers)
    if (rateLimit) this.#rateLimit = rateLimit
    if (response.status >= 400) {
      const body = req.stream ? await readErrorBody(response) : lenientBody(response._data as string | undefined)
      return { kind: "http", error: APIError.generate(response.status, body, response.headers) }
    }
    const data = await this.#successBody(req, url, response)
    if (data instanceof UnexpectedResponseError) return { kind: "http", error: data }
    return { kind: "ok", value: { data: data as T, response, requestId } }
  }

  /** The body of a 2xx answer: parsed JSON, the byte stream of an event stream, or the error saying it is not the API's answer. */
  async #successBody(req: FinalRequest, url: string, response: RawResponse): Promise<unknown> {
    const contentType = response.headers.get("content-type") ?? ""
    const unexpected = (expected: string, body: unknown, problem?: string) =>
      new UnexpectedResponseError({
        status: response.status,
        headers: response.headers,
        body,
        request: `${req.method} ${url}`,
        baseUrl: this.baseUrl,
        expected,
        problem
      })
    if (req.stream) {
      if (EVENT_STREAM_TYPE.test(contentType)) return response._data
      return unexpected("an event stream (text/event-stream)", await readErrorBody(response))
    }
    if (NO_BODY.has(response.status)) return undefined
    const text = (response._data as string | undefined) ?? ""
    if (!JSON_TYPE.test(contentType)) return unexpected("JSON", lenientBody(text))
    try {
      return JSON.parse(text) as unknown
    } catch (error) {
      return unexpected("JSON", text, (error as Error).message)
    }
  }
}

/**
 * The API origin without trailing slashes, checked once at construction: an absolute http(s) URL
 * (`localhost:8080` without a scheme fails every request otherwise, as "unknown scheme"); the API's own
 * `/platform/v1` prefix at its end is dropped, since every route path carries it already.
 */
export const checkBaseUrl = (baseUrl: string): string => {
  const trimmed = baseUrl.trim()
  let protocol: string | undefined
  try {
    protocol = new URL(trimmed).protocol
  } catch {
    protocol = undefined
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new PlatformError(
      `Invalid base URL ${JSON.stringify(baseUrl)}: give the API origin as an absolute http:// or https:// URL, such as http://localhost:8080 (the baseUrl option or PLATFORM_BASE_URL).`
    )
  }
  return trimmed.replace(/\/+$/, "").replace(/\/platform\/v1$/, "")
}

/** Throws a PlatformError for a missing API key with a message that says how to set one. */
export const missingApiKey = (): never => {
  throw new PlatformError(
    "Missing API key: pass `new Platform({ apiKey })` or set the PLATFORM_API_KEY environment variable (keys are created in the dashboard under API keys)."
  )
}
