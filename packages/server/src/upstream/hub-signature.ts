import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * JSON the way Meta's webhooks write it: compact, every non-ASCII UTF-16 unit as
 * `\uXXXX` and `/` as `\/`. Signing these bytes exercises verifiers on the same
 * escaping they meet in production (a verifier that re-serializes fails here).
 */
export const metaJsonStringify = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/\//g, "\\/")
    .replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** `sha256=<hex>` HMAC of the exact body bytes with the app secret (X-Hub-Signature-256). */
export const signHubSignature = (appSecret: string, body: string | Uint8Array): string =>
  `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`

/** Constant-time check of an `X-Hub-Signature-256` header against the exact body bytes. */
export const verifyHubSignature = (
  appSecret: string,
  body: string | Uint8Array,
  header: string | null | undefined
): boolean => {
  if (!header || !header.startsWith("sha256=")) return false
  const expected = Buffer.from(signHubSignature(appSecret, body))
  const given = Buffer.from(header.trim())
  return expected.length === given.length && timingSafeEqual(expected, given)
}
