import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { parseIdempotencyKey, type StoredResponse } from "./idempotency.js"
import { Messages } from "./messages.js"

/** A stored first response, replayed byte for byte and marked `Idempotent-Replayed: true` (DESIGN §5). */
export const replayResponse = (stored: StoredResponse) =>
  HttpServerResponse.text(stored.body, {
    status: stored.status,
    contentType: "application/json",
    headers: { "idempotent-replayed": "true" }
  })

/** `Server-Timing: upstream;dur=<ms>` once the send has called the upstream (also on a 502). */
const upstreamTiming = Effect.gen(function*() {
  let ms: number | undefined
  yield* HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(ms === undefined ? response : HttpServerResponse.setHeader(response, "server-timing", `upstream;dur=${ms.toFixed(1)}`))
  )
  return (value: number) => {
    ms = value
  }
})

/*
 * Seconds a client is asked to wait after 503 outcome_pending: a held outcome is retried
 * at least every 2 s while the database is away, so a retry with the Idempotency-Key
 * this long after it returns replays the recorded reply.
 */
export const OUTCOME_PENDING_RETRY_AFTER_SECONDS = 2

const retryAfter = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(OUTCOME_PENDING_RETRY_AFTER_SECONDS)))
)

export const MessagesLive = HttpApiBuilder.group(PlatformApi, "messages", (handlers) =>
  Effect.gen(function*() {
    const messages = yield* Messages
    return handlers
      .handle("send", ({ headers, payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const key = yield* parseIdempotencyKey(headers["idempotency-key"])
          const onUpstream = yield* upstreamTiming
          const result = yield* messages.send(principal.account_id, payload, key, onUpstream).pipe(
            Effect.tapErrorTag("SendOutcomePending", () => retryAfter)
          )
          return "_tag" in result ? replayResponse(result.response) : result
        }))
      .handle("markRead", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) => messages.markRead(principal.account_id, payload)))
  }))
