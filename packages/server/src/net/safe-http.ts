/**
 * The SSRF-safe outbound HTTP client: webhook delivery, raw forward and the
 * media-from-URL download all go through here (DESIGN §4).
 *
 * Why the connection is PINNED: `checkUrl` resolves the hostname once and
 * checks every address. If the client then resolved the name again, an
 * attacker-controlled DNS server could answer the second query with 127.0.0.1
 * or 169.254.169.254 (DNS rebinding, a TTL of 0 is enough). So the connection
 * is made to the checked `pinned` address only: each undici Pool is built with
 * a `connect.lookup` that ignores DNS and returns that address, while the URL
 * keeps the original hostname, so the Host header and TLS SNI / certificate
 * verification still use the real name.
 *
 * Why redirects are REFUSED: a public receiver answering `302 Location:
 * http://169.254.169.254/` would otherwise make us fetch an address we never
 * checked. A 3xx is returned as an ordinary response (delivery: a non-2xx
 * failed attempt; download: a failure), never followed.
 *
 * Throughput: Pools are cached per (origin, pinned address) in a bounded LRU,
 * so thousands of deliveries per second to one receiver reuse keep-alive
 * connections instead of opening one per request. Requests beyond a pool's
 * connections wait for a turn (connection-gate.ts) before their deadline starts.
 */
import { Effect, Schema } from "effect"
import type { LookupAddress, LookupOptions } from "node:dns"
import { Pool } from "undici"
import type { Dispatcher } from "undici"
import { ConnectionGates } from "./connection-gate.js"
import { type CheckedTarget, checkUrl, type Resolver, SsrfRejected } from "./ssrf.js"

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/** The whole exchange took longer than `timeoutMs` (before response headers arrived). */
export class SafeHttpTimeout extends Schema.TaggedError<SafeHttpTimeout>()("SafeHttpTimeout", {
  url: Schema.String,
  timeoutMs: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** The connection could not be made or broke (refused, reset, unreachable). */
export class SafeHttpConnectionError extends Schema.TaggedError<SafeHttpConnectionError>()("SafeHttpConnectionError", {
  url: Schema.String,
  code: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** TLS handshake or certificate verification failed. */
export class SafeHttpTlsError extends Schema.TaggedError<SafeHttpTlsError>()("SafeHttpTlsError", {
  url: Schema.String,
  code: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** The request itself was unusable (e.g. a header value undici refuses). */
export class SafeHttpRequestInvalid extends Schema.TaggedError<SafeHttpRequestInvalid>()("SafeHttpRequestInvalid", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** A download answered something other than a 2xx with a body within the cap. */
export class SafeDownloadRefused extends Schema.TaggedError<SafeDownloadRefused>()("SafeDownloadRefused", {
  url: Schema.String,
  kind: Schema.Literal("redirect", "http_status", "too_large"),
  status: Schema.optional(Schema.Number),
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** Every way `safeFetch` can fail; each carries a human `reason` for delivery records. */
export type SafeHttpError =
  | SsrfRejected
  | SafeHttpTimeout
  | SafeHttpConnectionError
  | SafeHttpTlsError
  | SafeHttpRequestInvalid

export type SafeDownloadError = SafeHttpError | SafeDownloadRefused

// ---------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------

export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_SNIPPET_BYTES = 512
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024

export interface SafeFetchInit {
  readonly method: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array
  /**
   * Time for connect + request + response headers + body, counted from the request's
   * turn at the receiver's connections (a wait for one is bounded by the same time and
   * fails as a timeout that says so). Default 10 s.
   */
  readonly timeoutMs?: number
  /** Bytes of the response body kept as `snippet`. Default 512. */
  readonly snippetBytes?: number
  /**
   * Overall cap on the response body read (and discarded past the snippet) so the
   * keep-alive connection can be reused; beyond it the connection is dropped.
   * Default 1 MiB.
   */
  readonly maxResponseBytes?: number
  /** Only used when the target is a string (checked here): `AppConfig.unsafeAllowLocalTargets`. */
  readonly allowLocal?: boolean
  /** Only used when the target is a string: overrides the DNS resolver. */
  readonly resolver?: Resolver
}

export interface SafeResponse {
  readonly status: number
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The first `snippetBytes` bytes of the body, decoded as UTF-8 (lenient). */
  readonly snippet: string
  /** Body bytes read (at most `maxResponseBytes` + one chunk). */
  readonly bodyBytesRead: number
  /** False when the body was cut at `maxResponseBytes` or by the deadline. */
  readonly bodyComplete: boolean
  /** Milliseconds from the request's turn at the connections until the body was read. */
  readonly latencyMs: number
  /** The address actually connected to. */
  readonly pinned: string
}

export interface SafeDownloadOptions {
  readonly allowLocal: boolean
  readonly maxBytes: number
  /** Time for the whole download, counted from its turn at the connections (as `SafeFetchInit.timeoutMs`). Default 10 s. */
  readonly timeoutMs?: number
  readonly headers?: Readonly<Record<string, string>>
  readonly resolver?: Resolver
}

export interface SafeDownload {
  readonly bytes: Uint8Array
  /** The Content-Type header as sent, or null. */
  readonly contentType: string | null
  readonly status: number
}

// ---------------------------------------------------------------------------
// Pinned pools, cached per (origin, pinned address)
// ---------------------------------------------------------------------------

const MAX_POOLS = 256
const CONNECTIONS_PER_ORIGIN = 128
const KEEP_ALIVE_MS = 30_000
const CONNECT_TIMEOUT_MS = 10_000

const pools = new Map<string, Pool>()

/** Turns at each pool's connections: a deadline starts when its request can be written (connection-gate.ts). */
const turns = new ConnectionGates(CONNECTIONS_PER_ORIGIN)

const poolKey = (target: CheckedTarget) => `${target.url.protocol}//${target.url.host}|${target.pinned}`

/**
 * Why an exchange got no turn at its pool's connections: it was aborted, or it waited
 * longer than its timeout (the wait is bounded so that a wait and the exchange after it
 * stay within twice the timeout, inside a delivery's 30 s lease).
 */
const noTurn = (url: string, timeoutMs: number, controller: AbortController): SafeHttpError =>
  controller.signal.aborted
    ? classify(controller.signal.reason, url, false, timeoutMs)
    : new SafeHttpTimeout({
      url,
      timeoutMs,
      reason: `no connection to the receiver free within ${timeoutMs} ms (all ${CONNECTIONS_PER_ORIGIN} busy)`
    })

/** A `net.connect` lookup that answers every query with the pinned address only. */
const pinnedLookup = (pinned: string, family: 4 | 6) =>
  (
    _hostname: string,
    options: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void
  ): void => {
    if (options.all === true) callback(null, [{ address: pinned, family }])
    else callback(null, pinned, family)
  }

const poolFor = (target: CheckedTarget, key: string = poolKey(target)): Pool => {
  const cached = pools.get(key)
  if (cached !== undefined && !cached.closed && !cached.destroyed) {
    pools.delete(key) // LRU: move to the back
    pools.set(key, cached)
    return cached
  }
  const pool = new Pool(target.url.origin, {
    connections: CONNECTIONS_PER_ORIGIN,
    pipelining: 1,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    // The per-request deadline (AbortSignal) is the real limit; these are backstops.
    headersTimeout: 5 * 60_000,
    bodyTimeout: 5 * 60_000,
    connect: { timeout: CONNECT_TIMEOUT_MS, lookup: pinnedLookup(target.pinned, target.family) }
  })
  pools.delete(key)
  pools.set(key, pool)
  while (pools.size > MAX_POOLS) {
    const oldest = pools.entries().next()
    if (oldest.done) break
    pools.delete(oldest.value[0])
    // Graceful: requests still running on the evicted pool finish first.
    oldest.value[1].close().catch(() => undefined)
  }
  return pool
}

/** Closes every cached connection pool (shutdown, tests). */
export const closeSafeHttpPools = (): Promise<void> => {
  const all = [...pools.values()]
  pools.clear()
  return Promise.all(all.map((pool) => pool.close().catch(() => undefined))).then(() => undefined)
}

/** How many connection pools are cached (one per origin and pinned address). */
export const safeHttpPoolCount = (): number => pools.size

// ---------------------------------------------------------------------------
// The exchange
// ---------------------------------------------------------------------------

/** Headers the client owns: Host must stay the checked hostname, framing is undici's. */
const OWNED_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "expect",
  "te",
  "trailer"
])

const requestHeaders = (headers: Readonly<Record<string, string>> | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  if (headers === undefined) return out
  for (const [name, value] of Object.entries(headers)) {
    if (!OWNED_HEADERS.has(name.toLowerCase())) out[name] = value
  }
  return out
}

const responseHeaders = (headers: Dispatcher.ResponseData["headers"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const errorCode = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && code !== "UND_ERR_SOCKET" && code !== "UND_ERR") return code
    current = (current as { cause?: unknown }).cause
  }
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

const errorMessage = (error: unknown): string => error instanceof Error ? error.message : String(error)

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT"])

const isTlsCode = (code: string) =>
  /^(ERR_TLS_|ERR_SSL_)/.test(code) || /CERT|SELF_SIGNED|LEAF_SIGNATURE|ISSUER/.test(code) || code === "EPROTO" ||
  code === "HOSTNAME_MISMATCH"

const CONNECTION_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the receiver",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed by the receiver",
  UND_ERR_CLOSED: "connection closed"
}

const classify = (error: unknown, url: string, timedOut: boolean, timeoutMs: number): SafeHttpError => {
  const code = errorCode(error) ?? "UNKNOWN"
  if (timedOut || TIMEOUT_CODES.has(code)) {
    return new SafeHttpTimeout({ url, timeoutMs, reason: `no response within ${timeoutMs} ms` })
  }
  if (isTlsCode(code)) {
    return new SafeHttpTlsError({ url, code, reason: `TLS failed (${code}): ${errorMessage(error)}` })
  }
  if (code === "UND_ERR_INVALID_ARG" || code === "ERR_INVALID_ARG_TYPE" || code === "ERR_INVALID_CHAR") {
    return new SafeHttpRequestInvalid({ url, reason: `invalid request: ${errorMessage(error)}` })
  }
  const known = CONNECTION_REASONS[code]
  return new SafeHttpConnectionError({
    url,
    code,
    reason: known !== undefined ? `${known} (${code})` : `connection failed (${code}): ${errorMessage(error)}`
  })
}

type ResponseBody = Dispatcher.ResponseData["body"]

/** Abandons a body (and its connection) without an unhandled 'error' event. */
const discard = (body: ResponseBody): void => {
  body.on("error", () => undefined)
  body.destroy()
}

/** Reads and drops a small body (a redirect, an error page) so the connection stays reusable. */
const drainSmall = (body: ResponseBody): Promise<void> =>
  body.dump({ limit: 64 * 1024 }).catch(() => discard(body))

/** A result that never rejects: what the Promise side of this module hands back. */
export type Outcome<A, E> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: E }

/**
 * Runs an exchange as an Effect; interruption aborts its controller (the same one
 * its deadline uses, so one AbortController per request).
 */
const fromOutcome = <A, E>(run: (controller: AbortController) => Promise<Outcome<A, E>>): Effect.Effect<A, E> =>
  Effect.async<A, E>((resume) => {
    const controller = new AbortController()
    run(controller).then((outcome) => resume(outcome.ok ? Effect.succeed(outcome.value) : Effect.fail(outcome.error)))
    return Effect.sync(() => controller.abort())
  })

/**
 * A deadline on `controller`: aborts it after `timeoutMs` (and says so in `state`).
 * The caller may abort the same controller itself (interruption, shutdown).
 */
const deadline = (controller: AbortController, timeoutMs: number) => {
  const state = { timedOut: false }
  const timer = setTimeout(() => {
    state.timedOut = true
    controller.abort(new Error(`deadline of ${timeoutMs} ms exceeded`))
  }, timeoutMs)
  return {
    signal: controller.signal,
    state,
    done: () => clearTimeout(timer)
  }
}

const resolveTarget = (
  target: CheckedTarget | string,
  allowLocal: boolean,
  resolver: Resolver | undefined
): Effect.Effect<CheckedTarget, SsrfRejected> =>
  typeof target === "string"
    ? checkUrl(target, resolver === undefined ? { allowLocal } : { allowLocal, resolver })
    : Effect.succeed(target)

const pathOf = (url: URL) => `${url.pathname}${url.search}`

/** Decodes snippets leniently (invalid bytes become U+FFFD); stateless between calls. */
const snippetDecoder = new TextDecoder("utf-8", { fatal: false })

interface BodyRead {
  readonly kept: ReadonlyArray<Uint8Array>
  readonly read: number
  readonly complete: boolean
}

/**
 * Reads a response body with listeners (no async iterator per response): keeps the
 * first `snippetBytes`, reads and drops the rest up to `maxResponseBytes`, beyond
 * which the connection is dropped instead of drained forever.
 */
const readBody = (body: ResponseBody, snippetBytes: number, maxResponseBytes: number): Promise<BodyRead> =>
  new Promise((resolve) => {
    const kept: Array<Uint8Array> = []
    let keptBytes = 0
    let read = 0
    let settled = false
    const finish = (complete: boolean) => {
      if (settled) return
      settled = true
      resolve({ kept, read, complete })
    }
    body.on("data", (chunk: Uint8Array) => {
      read += chunk.byteLength
      if (keptBytes < snippetBytes) {
        const part = chunk.subarray(0, snippetBytes - keptBytes)
        kept.push(part)
        keptBytes += part.byteLength
      }
      if (read > maxResponseBytes) {
        discard(body)
        finish(false)
      }
    })
    body.on("end", () => finish(true))
    // The deadline or a lost connection while reading the body.
    body.on("error", () => finish(false))
    body.on("close", () => finish(false))
  })

const exchange = async (
  target: CheckedTarget,
  init: SafeFetchInit,
  controller: AbortController
): Promise<Outcome<SafeResponse, SafeHttpError>> => {
  const url = target.url.href
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const snippetBytes = init.snippetBytes ?? DEFAULT_SNIPPET_BYTES
  const maxResponseBytes = Math.max(init.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, snippetBytes)
  const key = poolKey(target)
  const turn = turns.take(key, timeoutMs, controller.signal)
  if (turn !== true && !(await turn)) return { ok: false, error: noTurn(url, timeoutMs, controller) }
  // The deadline and the latency count from the turn: the receiver's time, not the queue's.
  const started = performance.now()
  const limit = deadline(controller, timeoutMs)
  try {
    let response: Dispatcher.ResponseData
    try {
      response = await poolFor(target, key).request({
        path: pathOf(target.url),
        method: init.method as Dispatcher.HttpMethod,
        headers: requestHeaders(init.headers),
        body: init.body ?? null,
        signal: limit.signal
      })
    } catch (error) {
      return { ok: false, error: classify(error, url, limit.state.timedOut, timeoutMs) }
    }

    // Headers are in: the status counts even if the body is cut short.
    const body = await readBody(response.body, snippetBytes, maxResponseBytes)
    // The body's 'end' reaches us before undici marks the connection idle; one
    // turn of the event loop lets the next request reuse it instead of opening
    // a second connection.
    if (body.complete) await new Promise<void>((resolve) => setImmediate(resolve))
    const raw = response.headers
    let headers: Record<string, string> | undefined
    return {
      ok: true,
      value: {
        status: response.statusCode,
        // Converted when asked for: the delivery engine never reads them.
        get headers() {
          headers ??= responseHeaders(raw)
          return headers
        },
        snippet: body.kept.length === 0
          ? ""
          : snippetDecoder.decode(body.kept.length === 1 ? body.kept[0] : Buffer.concat(body.kept)),
        bodyBytesRead: body.read,
        bodyComplete: body.complete,
        latencyMs: Math.round(performance.now() - started),
        pinned: target.pinned
      }
    }
  } finally {
    limit.done()
    turns.release(key)
  }
}

/**
 * `safeFetch` for a target already checked, as a Promise that never rejects: the
 * delivery engine's hot path, without a fiber per request. Aborting `controller`
 * (when given) abandons the request, as interrupting `safeFetch` does.
 */
export const safeExchange = (
  target: CheckedTarget,
  init: SafeFetchInit,
  controller: AbortController = new AbortController()
): Promise<Outcome<SafeResponse, SafeHttpError>> => exchange(target, init, controller)

/**
 * One HTTP exchange with a checked target (or a URL string, checked here with
 * `init.allowLocal`), connected to the pinned address, never following
 * redirects, within `timeoutMs` of its turn. A 3xx/4xx/5xx is a response, not a
 * failure. At most `snippetBytes` of the body are kept; up to
 * `maxResponseBytes` are read and discarded so the connection can be reused.
 */
export const safeFetch = (
  target: CheckedTarget | string,
  init: SafeFetchInit
): Effect.Effect<SafeResponse, SafeHttpError> =>
  resolveTarget(target, init.allowLocal ?? false, init.resolver).pipe(
    Effect.flatMap((checked) => fromOutcome((controller) => exchange(checked, init, controller)))
  )

const download = async (
  target: CheckedTarget,
  options: SafeDownloadOptions,
  controller: AbortController
): Promise<Outcome<SafeDownload, SafeDownloadError>> => {
  const url = target.url.href
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const key = poolKey(target)
  const turn = turns.take(key, timeoutMs, controller.signal)
  if (turn !== true && !(await turn)) return { ok: false, error: noTurn(url, timeoutMs, controller) }
  const limit = deadline(controller, timeoutMs)
  let response: Dispatcher.ResponseData | undefined
  try {
    response = await poolFor(target, key).request({
      path: pathOf(target.url),
      method: "GET",
      headers: requestHeaders(options.headers),
      signal: limit.signal
    })
    const status = response.statusCode
    if (status >= 300 && status < 400) {
      await drainSmall(response.body)
      return {
        ok: false,
        error: new SafeDownloadRefused({
          url,
          kind: "redirect",
          status,
          reason: `the URL answered a redirect (${status}); redirects are not followed`
        })
      }
    }
    if (status < 200 || status >= 300) {
      await drainSmall(response.body)
      return {
        ok: false,
        error: new SafeDownloadRefused({ url, kind: "http_status", status, reason: `the URL answered ${status}` })
      }
    }
    const tooLarge = () =>
      new SafeDownloadRefused({
        url,
        kind: "too_large",
        status,
        reason: `the download exceeds ${options.maxBytes} bytes`
      })
    const declared = Number(response.headers["content-length"])
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      discard(response.body)
      return { ok: false, error: tooLarge() }
    }
    const chunks: Array<Uint8Array> = []
    let size = 0
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > options.maxBytes) {
        discard(response.body)
        return { ok: false, error: tooLarge() }
      }
      chunks.push(chunk)
    }
    const contentType = response.headers["content-type"]
    return {
      ok: true,
      value: {
        bytes: new Uint8Array(Buffer.concat(chunks)),
        contentType: Array.isArray(contentType) ? (contentType[0] ?? null) : (contentType ?? null),
        status
      }
    }
  } catch (error) {
    if (response !== undefined) discard(response.body)
    return { ok: false, error: classify(error, url, limit.state.timedOut, timeoutMs) }
  } finally {
    limit.done()
    turns.release(key)
  }
}

/**
 * Downloads a URL (media from URL): checked and pinned like `safeFetch`,
 * redirects and non-2xx refused, aborted as soon as the body (declared or
 * streamed) exceeds `maxBytes`, all within `timeoutMs`.
 */
export const safeDownload = (
  url: string,
  options: SafeDownloadOptions
): Effect.Effect<SafeDownload, SafeDownloadError> =>
  resolveTarget(url, options.allowLocal, options.resolver).pipe(
    Effect.flatMap((checked) => fromOutcome((controller) => download(checked, options, controller)))
  )
