import { Context, Effect, Layer } from "effect"
import { DELIVERY_TIMEOUT_SECONDS, RESPONSE_BODY_SNIPPET_BYTES } from "@platform/shared"
import { AppConfig } from "../config.js"
import { safeFetch } from "./safe-http.js"

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
}

/**
 * How the dispatcher reaches receivers. The live layer is `safeFetch`: the SSRF
 * guard runs again at every delivery (DNS may have changed since create), the
 * connection is pinned to the checked address, redirects are not followed, 10 s
 * in total, 512 bytes of the body kept. Tests may swap in a recording transport.
 */
export class DeliveryTransport extends Context.Tag("@platform/server/DeliveryTransport")<
  DeliveryTransport,
  DeliveryTransportShape
>() {
  static readonly Live = Layer.effect(
    DeliveryTransport,
    Effect.map(AppConfig, (config): DeliveryTransportShape => ({
      post: (url, headers, body) => {
        const started = performance.now()
        return safeFetch(url, {
          method: "POST",
          headers,
          body,
          timeoutMs: DELIVERY_TIMEOUT_SECONDS * 1000,
          snippetBytes: RESPONSE_BODY_SNIPPET_BYTES,
          maxResponseBytes: 64 * 1024,
          allowLocal: config.unsafeAllowLocalTargets
        }).pipe(
          Effect.match({
            onSuccess: (r): PostOutcome => ({
              _tag: "Answered",
              status: r.status,
              snippet: r.snippet,
              latencyMs: Math.round(r.latencyMs)
            }),
            onFailure: (e): PostOutcome => ({
              _tag: "NoAnswer",
              reason: e.reason,
              latencyMs: Math.round(performance.now() - started)
            })
          })
        )
      }
    }))
  )
}
