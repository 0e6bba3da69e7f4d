import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Redacted, Schema } from "effect"
import type { AppConfig } from "../../config.js"
import { metaJsonStringify, signHubSignature } from "../hub-signature.js"

/** Set on every webhook the sandbox posts to `/webhook/incoming`. */
export const SANDBOX_CALLBACK_HEADER = "x-platform-sandbox-callback"

/** The sandbox could not hand a webhook to `/webhook/incoming`. */
export class SandboxWebhookFailed extends Schema.TaggedError<SandboxWebhookFailed>()("SandboxWebhookFailed", {
  message: Schema.String
}) {}

export interface PostedWebhook {
  /** The exact bytes posted and signed. */
  readonly body: string
  readonly signature: string
  readonly status: number
  readonly response: string
}

/**
 * Posts a webhook body the way Meta does: escaped-ASCII JSON, `X-Hub-Signature-256`
 * over those exact bytes with the app secret, to `${PUBLIC_URL}/webhook/incoming`.
 */
export const postSignedWebhook = (
  config: Pick<AppConfig, "publicUrl" | "metaAppSecret">,
  http: HttpClient.HttpClient,
  payload: unknown
): Effect.Effect<PostedWebhook, SandboxWebhookFailed> => {
  const body = metaJsonStringify(payload)
  const signature = signHubSignature(Redacted.value(config.metaAppSecret), body)
  return http.execute(
    HttpClientRequest.post(`${config.publicUrl}/webhook/incoming`).pipe(
      HttpClientRequest.setHeaders({
        "x-hub-signature-256": signature,
        "user-agent": "facebookexternalua",
        // Marks the sandbox's own callbacks: their access line is Debug (inbound/route.ts).
        [SANDBOX_CALLBACK_HEADER]: "1"
      }),
      HttpClientRequest.bodyText(body, "application/json")
    )
  ).pipe(
    Effect.flatMap((res) => Effect.map(res.text, (response) => ({ body, signature, status: res.status, response }))),
    Effect.scoped,
    Effect.timeoutFail({
      duration: Duration.seconds(10),
      onTimeout: () => new SandboxWebhookFailed({ message: "/webhook/incoming did not answer within 10 s" })
    }),
    Effect.catchTags({
      RequestError: (e) => Effect.fail(new SandboxWebhookFailed({ message: `/webhook/incoming unreachable: ${e.reason}` })),
      ResponseError: (e) => Effect.fail(new SandboxWebhookFailed({ message: `/webhook/incoming answer unreadable: ${e.reason}` }))
    })
  )
}
