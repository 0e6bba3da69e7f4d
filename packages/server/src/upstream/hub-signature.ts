import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * A JSON integer written with exactly its digits. Meta writes ids such as
 * `message_template_id` as bare numbers, many above 2^53: a JavaScript number would
 * round them (9730438519626231 becomes 9730438519626232), so they travel as text.
 */
export class JsonInteger {
  constructor(readonly digits: string) {
    if (!/^-?\d+$/.test(digits)) throw new TypeError(`JsonInteger: not an integer: ${digits}`)
  }
}

/** A marker no JSON text of ours contains: a JsonInteger is written as a marked string, then unquoted. */
const INTEGER_MARK = `~json-integer-${randomBytes(6).toString("hex")}~`
const MARKED_INTEGER = new RegExp(`"${INTEGER_MARK}(-?\\d+)"`, "g")

const markIntegers = (_key: string, value: unknown): unknown =>
  value instanceof JsonInteger ? `${INTEGER_MARK}${value.digits}` : value

/**
 * JSON the way Meta's webhooks write it: compact, every non-ASCII UTF-16 unit as
 * `\uXXXX` and `/` as `\/`, a JsonInteger as its exact digits. Signing these bytes
 * exercises verifiers on the same escaping they meet in production (a verifier that
 * re-serializes fails here).
 */
export const metaJsonStringify = (value: unknown): string =>
  JSON.stringify(value, markIntegers)
    .replace(MARKED_INTEGER, "$1")
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
