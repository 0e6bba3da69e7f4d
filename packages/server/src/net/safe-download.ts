/**
 * Media from a URL through the SSRF-safe outbound client (DESIGN §4): checked and
 * pinned like a fetch (pinned-pools.ts), the body kept in memory up to a cap.
 *
 * Why redirects are REFUSED: a public URL answering `302 Location:
 * http://169.254.169.254/` would otherwise make us fetch an address we never
 * checked. A 3xx fails the download, never followed.
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
import { classify, SafeDownloadRefused, type SafeDownloadError } from "./safe-http-errors.js"
import type { CheckedTarget } from "./ssrf.js"

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

/** Reads and drops a small body (a redirect, an error page) so the connection stays reusable. */
const drainSmall = (body: ResponseBody): Promise<void> =>
  body.dump({ limit: 64 * 1024 }).catch(() => discard(body))

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
