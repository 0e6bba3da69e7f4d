import { assertSecret } from "./errors.js"
import type { RawBody } from "./errors.js"
import { sign, signStandard, type SignStandardOptions } from "./sign.js"

export { sign, signStandard, type SignStandardOptions, type StandardHeaders } from "./sign.js"

/** Options of `signedHeaders`. */
export interface SignedHeadersOptions extends SignStandardOptions {
  /** `X-Platform-Event` (default `message.sent`). */
  readonly event?: string
  /** `X-Platform-Delivery-Id` (default `1`). */
  readonly deliveryId?: string | number
}

/** Builds the full header set of a normalized delivery for a test request: `X-Platform-*` headers, plus the Standard Webhooks headers when the secret is a `whsec_` secret. */
export async function signedHeaders(
  secret: string,
  rawBody: RawBody,
  options: SignedHeadersOptions = {}
): Promise<Record<string, string>> {
  assertSecret(secret, "signedHeaders")
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Service-Platform/1.0",
    "x-platform-event": options.event ?? "message.sent",
    "x-platform-delivery-id": String(options.deliveryId ?? 1),
    "x-platform-signature": await sign(secret, rawBody)
  }
  if (options.id !== undefined) headers["x-platform-event-id"] = options.id
  if (secret.startsWith("whsec_")) {
    const standard = await signStandard(secret, rawBody, options)
    Object.assign(headers, standard)
    headers["x-platform-event-id"] ??= standard["webhook-id"]
  }
  return headers
}
