/**
 * One HTTP exchange through the SSRF-safe outbound client: webhook delivery and raw
 * forward go through here (DESIGN §4), connected to the checked address only
 * (pinned-pools.ts).
 *
 * Why redirects are REFUSED: a public receiver answering `302 Location:
 * http://169.254.169.254/` would otherwise make us fetch an address we never
 * checked. A 3xx is returned as an ordinary response (delivery: a non-2xx
 * failed attempt), never followed.
 */
import { Effect } from "effect"
import type { Dispatcher } from "undici"
import type { Resolver } from "./dns-resolver.js"
import { noTurn, poolFor, poolKey, turns } from "./pinned-pools.js"
import {
  DEFAULT_TIMEOUT_MS,
  deadline,
  discard,
  fromOutcome,
  type Outcome,
  pathOf,
  requestHeaders,
  resolveTarget,
  type ResponseBody
} from "./request-lifecycle.js"
import { classify, type SafeHttpError } from "./safe-http-errors.js"
import type { CheckedTarget } from "./ssrf.js"

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

const responseHeaders = (headers: Dispatcher.ResponseData["headers"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

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
