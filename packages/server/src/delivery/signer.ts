import { createHmac, randomBytes } from "node:crypto"

const SECRET_PREFIX = "whsec_"

/**
 * A new subscription secret: `whsec_` and the base64 of 32 random bytes. The
 * decoded bytes are the Standard Webhooks key; X-Platform-Signature is keyed with
 * the UTF-8 bytes of the whole string, as SPEC §6.2 says ("the plaintext secret").
 */
export const newSubscriptionSecret = (): string => SECRET_PREFIX + randomBytes(32).toString("base64")

/** `sha256=<hex>`: HMAC-SHA256 of the raw body bytes keyed with the secret as given. */
export const platformSignature = (secret: string, body: Uint8Array): string =>
  "sha256=" + createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex")

/** The Standard Webhooks key of a secret: the base64 after `whsec_` (the whole string when unprefixed). */
export const standardKey = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")

/** `v1,<base64>`: HMAC-SHA256 of `id.timestamp.body` under the Standard Webhooks key. */
export const standardSignature = (key: Uint8Array, id: string, timestamp: number, body: Uint8Array): string =>
  "v1," + createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64")

/** The keys a delivery is signed with: the current secret and, during a rotation overlap, the previous one. */
export interface SigningKeys {
  readonly secret: string
  readonly standardKeys: ReadonlyArray<Buffer>
}

export const signingKeys = (secret: string, previous: string | null): SigningKeys => ({
  secret,
  standardKeys: previous === null ? [standardKey(secret)] : [standardKey(secret), standardKey(previous)]
})

/**
 * The signature headers of one attempt: ours over the body, and the Standard
 * Webhooks trio (id = event id, timestamp = attempt time) so receivers can use
 * any Standard Webhooks library and reject replays. During a rotation overlap
 * `webhook-signature` carries both signatures, space-separated.
 */
export const signatureHeaders = (
  keys: SigningKeys,
  eventId: string,
  timestampSeconds: number,
  body: Uint8Array
): Record<string, string> => ({
  "x-platform-signature": platformSignature(keys.secret, body),
  "webhook-id": eventId,
  "webhook-timestamp": String(timestampSeconds),
  "webhook-signature": keys.standardKeys.map((k) => standardSignature(k, eventId, timestampSeconds, body)).join(" ")
})

/** Header names a subscription's custom_headers may not set (SPEC §4.5), lower-cased. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "x-platform-signature",
  "x-platform-event",
  "x-platform-event-id",
  "x-platform-delivery-id",
  "content-type",
  "authorization",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "user-agent",
  "host",
  "content-length",
  "transfer-encoding",
  "connection"
])

/** A header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** What a header value cannot carry (RFC 9110 field-value; Node refuses the rest): not tab, visible ASCII, space or Latin-1. */
export const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/u

/** custom_headers without the reserved names (case-insensitive) and without names or values unfit for a header. */
export const stripReservedHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (RESERVED_HEADERS.has(name.toLowerCase())) continue
    if (!HEADER_NAME.test(name) || NOT_IN_HEADER_VALUE.test(value)) continue
    out[name] = value
  }
  return out
}
