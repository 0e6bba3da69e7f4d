import { hmacSha256Hex, platformKey } from "./crypto.js"
import { isLowerHex, timingSafeEqualText, toBytes } from "./encoding.js"
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

/** One secret, or several (current first) during rotation. */
export type Secrets = string | ReadonlyArray<string>

/**
 * Checks the header's prefix and length; undefined when it is `sha256=` and 64 more characters. Whether those are
 * lowercase hex is only checked once a digest did not match (see `verifyFrom`): a digest is lowercase hex, so a
 * header that matches one is well-formed, and the happy path skips a second pass over the digits.
 */
function headerProblem(header: unknown): VerifyFailure<SignatureFailureReason> | undefined {
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
  return undefined
}

const NOT_LOWER_HEX = failure("malformed_signature", "the X-Platform-Signature hex digest must be lowercase hex")

const MISMATCH = failure(
  "signature_mismatch",
  "the signature does not match the body: check the secret and that the body is the exact raw bytes received (not re-serialized JSON)"
)

/**
 * Tries the secrets from `index` on: the MAC is computed as lowercase hex and compared with the header's hex digits
 * in constant time, so nothing is decoded or allocated besides the digest string. Stays synchronous while the
 * backend is (node:crypto); with WebCrypto the remaining secrets are tried after each digest resolves.
 */
function verifyFrom(secrets: Secrets, index: number, body: string | Uint8Array, header: string): SignatureResult | Promise<SignatureResult> {
  const count = typeof secrets === "string" ? 1 : secrets.length
  for (; index < count; index++) {
    const digest = hmacSha256Hex(platformKey(typeof secrets === "string" ? secrets : secrets[index]!), body)
    if (typeof digest !== "string") return digest.then((hex) => settle(secrets, index, body, header, hex))
    if (timingSafeEqualText(header, PREFIX.length, digest)) return { ok: true, secretIndex: index }
    if (index === 0 && !isLowerHex(header, PREFIX.length)) return NOT_LOWER_HEX
  }
  return MISMATCH
}

function settle(secrets: Secrets, index: number, body: string | Uint8Array, header: string, hex: string): SignatureResult | Promise<SignatureResult> {
  if (timingSafeEqualText(header, PREFIX.length, hex)) return { ok: true, secretIndex: index }
  if (index === 0 && !isLowerHex(header, PREFIX.length)) return NOT_LOWER_HEX
  return verifyFrom(secrets, index + 1, body, header)
}

/** Core of `verify`/`verifyWithFallback`: synchronous whenever the crypto backend is; `secrets` must have been checked. */
export function verifySignature(
  secrets: Secrets,
  rawBody: RawBody | ArrayBufferView,
  header: string | null | undefined
): SignatureResult | Promise<SignatureResult> {
  const problem = headerProblem(header)
  if (problem !== undefined) return problem
  const body = typeof rawBody === "string" || rawBody instanceof Uint8Array ? rawBody : toBytes(rawBody)
  return verifyFrom(secrets, 0, body, header as string)
}

/** Validates the secret arguments shared by the verify functions (one non-empty string, or a non-empty array of them) and returns them unchanged. */
export function checkSecrets(secrets: unknown, fn: string): Secrets {
  if (!Array.isArray(secrets)) {
    assertSecret(secrets, fn)
    return secrets
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
