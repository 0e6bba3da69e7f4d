import { Context, Effect, Either, Layer, Runtime } from "effect"
import { DELIVERY_TIMEOUT_SECONDS, RESPONSE_BODY_SNIPPET_BYTES } from "@platform/shared"
import { AppConfig } from "../config.js"
import { type SafeFetchInit, safeExchange } from "../net/safe-fetch.js"
import { type CheckedTarget, checkUrl, type SsrfRejected } from "../net/ssrf.js"

/** What one POST to a receiver came to: an answer (any status) or no answer. */
export type PostOutcome =
  | { readonly _tag: "Answered"; readonly status: number; readonly snippet: string; readonly latencyMs: number }
  | { readonly _tag: "NoAnswer"; readonly reason: string; readonly latencyMs: number }

export interface DeliveryTransportShape {
  readonly post: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: Uint8Array
  ) => Effect.Effect<PostOutcome>
  /**
   * `post` as a Promise that never rejects, for the dispatcher's pipeline (no fiber
   * per request). Aborting `controller` abandons the request (shutdown).
   */
  readonly send: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: Uint8Array,
    controller?: AbortController
  ) => Promise<PostOutcome>
}

/**
 * How long a checked target is reused for further POSTs to the same URL. The
 * resolver keeps DNS answers 5 s itself (ssrf.ts), so an answer is at most 6 s old
 * when a connection is pinned to it; every address was checked when it was cached.
 */
const CHECKED_TTL_MS = 1000
const MAX_CHECKED = 1024

type Checked = Either.Either<CheckedTarget, Pick<SsrfRejected, "reason">>

const noAnswer = (reason: string, started: number): PostOutcome => ({
  _tag: "NoAnswer",
  reason,
  latencyMs: Math.round(performance.now() - started)
})

/**
 * How the dispatcher reaches receivers. The live layer is safe-fetch.ts: the SSRF
 * guard runs again for every delivery (DNS may have changed since create; one
 * check serves the POSTs to a URL within a second), the connection is pinned to
 * the checked address, redirects are not followed, 10 s in total, 512 bytes of the
 * body kept. Tests may swap in a recording transport.
 */
export class DeliveryTransport extends Context.Tag("@platform/server/DeliveryTransport")<
  DeliveryTransport,
  DeliveryTransportShape
>() {
  static readonly Live = Layer.effect(
    DeliveryTransport,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const runtime = yield* Effect.runtime<never>()
      const allowLocal = config.unsafeAllowLocalTargets
      const init: Omit<SafeFetchInit, "headers" | "body"> = {
        method: "POST",
        timeoutMs: DELIVERY_TIMEOUT_SECONDS * 1000,
        snippetBytes: RESPONSE_BODY_SNIPPET_BYTES,
        maxResponseBytes: 64 * 1024
      }
      // In flight or done, so a burst to one URL shares one check. Refusals are not kept.
      const checked = new Map<string, { readonly until: number; readonly target: Promise<Checked> }>()
      const check = (url: string): Promise<Checked> => {
        const now = Date.now()
        const hit = checked.get(url)
        if (hit !== undefined && hit.until > now) return hit.target
        const target = Runtime.runPromise(runtime)(Effect.either(checkUrl(url, { allowLocal }))).catch(
          (defect: unknown): Checked => Either.left({ reason: `SSRF check failed: ${String(defect)}` })
        )
        checked.delete(url)
        if (checked.size >= MAX_CHECKED) checked.delete(checked.keys().next().value!)
        checked.set(url, { until: now + CHECKED_TTL_MS, target })
        void target.then((result) => {
          if (Either.isLeft(result) && checked.get(url)?.target === target) checked.delete(url)
        })
        return target
      }

      const send: DeliveryTransportShape["send"] = async (url, headers, body, controller) => {
        const started = performance.now()
        try {
          const target = await check(url)
          if (Either.isLeft(target)) return noAnswer(target.left.reason, started)
          const result = await safeExchange(target.right, { ...init, headers, body }, controller)
          return result.ok
            ? { _tag: "Answered", status: result.value.status, snippet: result.value.snippet, latencyMs: result.value.latencyMs }
            : noAnswer(result.error.reason, started)
        } catch (error) {
          return noAnswer(`request failed: ${error instanceof Error ? error.message : String(error)}`, started)
        }
      }

      const post: DeliveryTransportShape["post"] = (url, headers, body) =>
        Effect.async<PostOutcome>((resume) => {
          const controller = new AbortController()
          send(url, headers, body, controller).then((outcome) => resume(Effect.succeed(outcome)))
          return Effect.sync(() => controller.abort())
        })

      return { post, send }
    })
  )
}
