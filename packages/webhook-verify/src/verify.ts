import { hmacSha256, platformKey } from "./crypto.js"
import { hexToBytes, timingSafeEqual, toBytes } from "./encoding.js"
import { assertRawBody, assertSecret, failure, misuse, type RawBody, type VerifyFailure } from "./errors.js"

/** Why an `X-Platform-Signature` check failed. */
export type SignatureFailureReason = "missing_signature" | "malformed_signature" | "signature_mismatch"

/** A successful `X-Platform-Signature` check; `secretIndex` says which secret matched (0 without rotation). */
export interface SignatureVerified {
  /** Always true on success. */
  readonly ok: true
  /** Index of the matching secret in the list given (0 for a single secret). */
  readonly secretIndex: number
}

/** The result of an `X-Platform-Signature` check: success, or an ordinary failure with a reason. */
export type SignatureResult = SignatureVerified | VerifyFailure<SignatureFailureReason>

/** The name of the signature header of normalized and raw-forward deliveries. */
export const SIGNATURE_HEADER = "x-platform-signature"

const PREFIX = "sha256="
const SIGNATURE_LENGTH = PREFIX.length + 64

function parseHeader(header: unknown): Uint8Array | VerifyFailure<SignatureFailureReason> {
  if (header === undefined || header === null || header === "") {
    return failure("missing_signature", "the X-Platform-Signature header is missing")
  }
  if (typeof header !== "string") {
    throw misuse(`the signature header must be a string but got ${typeof header}`)
  }
  if (!header.startsWith(PREFIX)) {
    return failure("malformed_signature", 'the X-Platform-Signature header must start with "sha256="')
  }
  if (header.length !== SIGNATURE_LENGTH) {
    return failure("malformed_signature", 'the X-Platform-Signature header must be "sha256=" followed by 64 hex characters')
  }
  const expected = hexToBytes(header.slice(PREFIX.length))
  if (expected === null) {
    return failure("malformed_signature", "the X-Platform-Signature hex digest must be lowercase hex")
  }
  return expected
}

const MISMATCH = failure(
  "signature_mismatch",
  "the signature does not match the body: check the secret and that the body is the exact raw bytes received (not re-serialized JSON)"
)

/** Core of `verify`/`verifyWithFallback`: synchronous whenever the crypto backend is. */
export function verifySignature(
  secrets: ReadonlyArray<string>,
  rawBody: RawBody,
  header: string | null | undefined
): SignatureResult | Promise<SignatureResult> {
  const expected = parseHeader(header)
  if (!(expected instanceof Uint8Array)) return expected
  const body = typeof rawBody === "string" || rawBody instanceof Uint8Array ? rawBody : toBytes(rawBody)
  const check = (index: number): SignatureResult | Promise<SignatureResult> => {
    if (index >= secrets.length) return MISMATCH
    const digest = hmacSha256(platformKey(secrets[index]!), [body])
    if (digest instanceof Uint8Array) {
      return timingSafeEqual(digest, expected) ? { ok: true, secretIndex: index } : check(index + 1)
    }
    return digest.then((d) => (timingSafeEqual(d, expected) ? { ok: true, secretIndex: index } : check(index + 1)))
  }
  return check(0)
}

/** Validates the arguments shared by the verify functions and returns the secret list. */
export function checkSecrets(secrets: unknown, fn: string): ReadonlyArray<string> {
  if (!Array.isArray(secrets)) {
    assertSecret(secrets, fn)
    return [secrets]
  }
  if (secrets.length === 0) {
    throw misuse(`${fn}() needs a non-empty array of secrets`)
  }
  for (const secret of secrets) assertSecret(secret, fn)
  return secrets as ReadonlyArray<string>
}

/** Verifies an `X-Platform-Signature: sha256=<hex>` header against the raw body in constant time; a mismatch is a result, misuse throws a TypeError. */
export async function verify(
  secret: string,
  rawBody: RawBody,
  signatureHeader: string | null | undefined
): Promise<SignatureResult> {
  const secrets = checkSecrets(secret, "verify")
  assertRawBody(rawBody, "verify")
  return verifySignature(secrets, rawBody, signatureHeader)
}

/** Verifies against each secret in turn (current first, then previous ones) for secret rotation. */
export async function verifyWithFallback(
  secrets: ReadonlyArray<string>,
  rawBody: RawBody,
  signatureHeader: string | null | undefined
): Promise<SignatureResult> {
  if (!Array.isArray(secrets)) throw misuse("verifyWithFallback() needs an array of secrets; use verify() for one secret")
  const list = checkSecrets(secrets, "verifyWithFallback")
  assertRawBody(rawBody, "verifyWithFallback")
  return verifySignature(list, rawBody, signatureHeader)
}
