import * as nodeCrypto from "node:crypto"
import { createHash, randomBytes } from "node:crypto"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const RANDOM_LENGTH = 40
export const API_KEY_PREFIX = "pk_live_"
/** Characters kept for display: `pk_live_` and the first 4 random ones. */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 4

/** Unbiased base62 by rejection sampling (bytes >= 248 are dropped). */
const randomBase62 = (length: number): string => {
  let out = ""
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}

/** A new key `pk_live_<40 base62>` (≈238 bits); the plaintext is shown once and never stored. */
export const generateApiKey = (): string => API_KEY_PREFIX + randomBase62(RANDOM_LENGTH)

/** SHA-256 of the plaintext: keys are high-entropy, so a fast hash is enough and keeps lookups cheap. */
export const hashApiKey = (plaintext: string): Buffer => createHash("sha256").update(plaintext, "utf8").digest()

// The one-shot crypto.hash (Node >= 20.12) skips the Hash object: several times cheaper
// on the per-request path. Read off the namespace, not imported by name, so that an
// older Node 20 (no such export) falls back to createHash instead of failing to load.
const oneShot: typeof nodeCrypto.hash | undefined = nodeCrypto.hash

/** `hashApiKey` as lowercase hex: the in-process cache key of a key. */
export const hashApiKeyHex = (plaintext: string): string =>
  oneShot !== undefined ? oneShot("sha256", plaintext, "hex") : hashApiKey(plaintext).toString("hex")

export const displayPrefix = (plaintext: string): string => plaintext.slice(0, DISPLAY_LENGTH)

/** Cheap syntactic check before any lookup. */
export const looksLikeApiKey = (value: string): boolean =>
  value.length >= API_KEY_PREFIX.length + 32 && value.length <= 128 && value.startsWith(API_KEY_PREFIX)

/** A random url-safe token (session ids, webhook secrets). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url")
