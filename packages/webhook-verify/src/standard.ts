import { hmacSha256, standardKey } from "./crypto.js"
import { base64ToBytes, timingSafeEqual, toBytes } from "./encoding.js"
import { assertRawBody, failure, misuse, type RawBody, type VerifyFailure } from "./errors.js"
import { getHeader, type HeadersLike } from "./headers.js"
import { checkSecrets, type Secrets } from "./verify.js"

/** Why a Standard Webhooks check failed. */
export type StandardFailureReason =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "malformed_signature"
  | "signature_mismatch"

/** A successful Standard Webhooks check. */
export interface StandardVerified {
  /** Always true on success. */
  readonly ok: true
  /** The `webhook-id` header: the event id, usable as idempotency key. */
  readonly id: string
  /** The `webhook-timestamp` header in unix seconds. */
  readonly timestamp: number
  /** Index of the matching secret in the list given (0 for a single secret). */
  readonly secretIndex: number
}

/** The result of a Standard Webhooks check. */
export type StandardResult = StandardVerified | VerifyFailure<StandardFailureReason>

/** Options of `verifyStandard`. */
export interface VerifyStandardOptions {
  /** Allowed distance between `webhook-timestamp` and now, in seconds, in both directions (default 300). */
  readonly toleranceSeconds?: number
  /** The current time (default `new Date()`). */
  readonly now?: Date
}

/** The current time in unix seconds; a `now` that is not a valid Date throws, as every timestamp would otherwise pass the window. */
function nowSeconds(now: unknown, fn: string): number {
  if (now === undefined) return Math.floor(Date.now() / 1000)
  const ms = now instanceof Date ? now.getTime() : Number.NaN
  if (!Number.isFinite(ms)) {
    throw misuse(
      `${fn}() needs now as a valid Date but got ${now instanceof Date ? "an invalid Date" : typeof now}; ` +
        "leave it out to use the current time"
    )
  }
  return Math.floor(ms / 1000)
}

/** The missing_headers failure, naming the absent headers, and the other scheme when only `X-Platform-Signature` came (raw-forward deliveries carry nothing else). */
function missingHeaders(headers: HeadersLike, found: Readonly<Record<string, string | undefined>>): VerifyFailure<"missing_headers"> {
  const missing = Object.keys(found).filter((name) => !found[name])
  const platformOnly = missing.length === 3 && !!getHeader(headers, "x-platform-signature")
  return failure(
    "missing_headers",
    `the ${missing.join(", ")} header${missing.length === 1 ? " is" : "s are"} missing (webhook-id, webhook-timestamp and webhook-signature are all required)` +
      (platformOnly ? "; the delivery carries only X-Platform-Signature, as raw-forward deliveries do: check it with verifyRawForward() or verify()" : "")
  )
}

/** Core of `verifyStandard`, synchronous whenever the crypto backend is. */
export function verifyStandardSignature(
  secrets: Secrets,
  rawBody: RawBody,
  headers: HeadersLike,
  options: VerifyStandardOptions,
  fn: string
): StandardResult | Promise<StandardResult> {
  const tolerance = options.toleranceSeconds ?? 300
  if (!(tolerance >= 0)) throw misuse(`${fn}() needs toleranceSeconds >= 0`)
  const keys = typeof secrets === "string" ? [standardKey(secrets, fn)] : secrets.map((secret) => standardKey(secret, fn))
  const id = getHeader(headers, "webhook-id")
  const timestampHeader = getHeader(headers, "webhook-timestamp")
  const signatureHeader = getHeader(headers, "webhook-signature")
  if (!id || !timestampHeader || !signatureHeader) return missingHeaders(headers, { "webhook-id": id, "webhook-timestamp": timestampHeader, "webhook-signature": signatureHeader })
  if (!/^\d{1,15}$/.test(timestampHeader)) {
    return failure("invalid_timestamp", "the webhook-timestamp header must be unix seconds")
  }
  const timestamp = Number(timestampHeader)
  const now = nowSeconds(options.now, fn)
  if (now - timestamp > tolerance) {
    return failure("timestamp_too_old", `the webhook-timestamp is more than ${tolerance} s in the past (replay, or a wrong clock)`)
  }
  if (timestamp - now > tolerance) {
    return failure("timestamp_too_new", `the webhook-timestamp is more than ${tolerance} s in the future (check the clock)`)
  }
  const candidates: Uint8Array[] = []
  for (const entry of signatureHeader.split(" ")) {
    if (!entry.startsWith("v1,")) continue
    const bytes = base64ToBytes(entry.slice(3))
    if (bytes !== null && bytes.length === 32) candidates.push(bytes)
  }
  if (candidates.length === 0) {
    return failure("malformed_signature", 'the webhook-signature header holds no "v1,<base64>" signature')
  }
  const body = typeof rawBody === "string" || rawBody instanceof Uint8Array ? rawBody : toBytes(rawBody)
  const parts = [`${id}.${timestampHeader}.`, body]
  const matches = (digest: Uint8Array): boolean => {
    let match = false
    for (const candidate of candidates) match = timingSafeEqual(digest, candidate) || match
    return match
  }
  const check = (index: number): StandardResult | Promise<StandardResult> => {
    if (index >= keys.length) {
      return failure("signature_mismatch", "no webhook-signature matches: check the secret and that the body is the exact raw bytes received")
    }
    const digest = hmacSha256(keys[index]!, parts)
    if (digest instanceof Uint8Array) return matches(digest) ? { ok: true, id, timestamp, secretIndex: index } : check(index + 1)
    return digest.then((d) => (matches(d) ? { ok: true, id, timestamp, secretIndex: index } : check(index + 1)))
  }
  return check(0)
}

/** Verifies the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with a `whsec_<base64>` secret or a rotation list. */
export async function verifyStandard(
  secret: string | ReadonlyArray<string>,
  rawBody: RawBody,
  headers: HeadersLike,
  options: VerifyStandardOptions = {}
): Promise<StandardResult> {
  const secrets = checkSecrets(secret, "verifyStandard")
  assertRawBody(rawBody, "verifyStandard")
  if (typeof headers !== "object" || headers === null) throw misuse("verifyStandard() needs the request headers")
  return verifyStandardSignature(secrets, rawBody, headers, options, "verifyStandard")
}
