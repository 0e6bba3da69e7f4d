import { hmacSha256, platformKey, standardKey } from "./crypto.js"
import { bytesToBase64, bytesToHex, toBytes } from "./encoding.js"
import { assertRawBody, assertSecret, misuse, type RawBody } from "./errors.js"

/** The Standard Webhooks headers of a signed delivery (a type alias, so it is usable wherever a header record is expected). */
export type StandardHeaders = {
  /** The event id. */
  readonly "webhook-id": string
  /** Unix seconds at signing. */
  readonly "webhook-timestamp": string
  /** Space-separated `v1,<base64>` signatures, one per secret. */
  readonly "webhook-signature": string
}

/** Options of `signStandard`. */
export interface SignStandardOptions {
  /** The `webhook-id` (default a random `msg_<hex>`). */
  readonly id?: string
  /** Signing time as a Date or unix seconds (default now). */
  readonly timestamp?: Date | number
}

function bodyOf(rawBody: RawBody, fn: string): string | Uint8Array {
  assertRawBody(rawBody, fn)
  return typeof rawBody === "string" ? rawBody : toBytes(rawBody)
}

/** Computes the `X-Platform-Signature` value `sha256=<lowercase hex>` of a body, keyed with the secret's UTF-8 bytes. */
export async function sign(secret: string, rawBody: RawBody): Promise<string> {
  assertSecret(secret, "sign")
  const digest = await hmacSha256(platformKey(secret), [bodyOf(rawBody, "sign")])
  return `sha256=${bytesToHex(digest)}`
}

function randomId(): string {
  const bytes = new Uint8Array(16)
  globalThis.crypto.getRandomValues(bytes)
  return `msg_${bytesToHex(bytes)}`
}

/** Computes the Standard Webhooks headers of a body, with one `v1,` signature per secret (several during rotation). */
export async function signStandard(
  secret: string | ReadonlyArray<string>,
  rawBody: RawBody,
  options: SignStandardOptions = {}
): Promise<StandardHeaders> {
  const secrets = typeof secret === "string" ? [secret] : secret
  if (!Array.isArray(secrets) || secrets.length === 0) throw misuse("signStandard() needs a secret or a non-empty array of secrets")
  for (const s of secrets) assertSecret(s, "signStandard")
  const body = bodyOf(rawBody, "signStandard")
  const id = options.id ?? randomId()
  const ts = options.timestamp ?? new Date()
  const timestamp = String(typeof ts === "number" ? Math.floor(ts) : Math.floor(ts.getTime() / 1000))
  const signatures: string[] = []
  for (const s of secrets) {
    const digest = await hmacSha256(standardKey(s, "signStandard"), [`${id}.${timestamp}.`, body])
    signatures.push(`v1,${bytesToBase64(digest)}`)
  }
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") }
}
