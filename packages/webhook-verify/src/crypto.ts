import { base64ToBytes, bytesToHex, concatBytes, toBytes, utf8 } from "./encoding.js"
import { misuse } from "./errors.js"

/** A chunk of data to authenticate. */
export type Data = string | Uint8Array

/** An HMAC key with backend handles cached on first use. */
export interface HmacKey {
  readonly bytes: Uint8Array
  node?: unknown
  web?: Promise<CryptoKey>
}

/** Computes HMAC-SHA256; synchronous where the runtime allows it (node:crypto), otherwise async (WebCrypto). */
export interface CryptoBackend {
  readonly name: "node" | "webcrypto"
  /** The MAC of the concatenated parts as bytes. */
  hmacSha256(key: HmacKey, parts: ReadonlyArray<Data>): Uint8Array | Promise<Uint8Array>
  /** The MAC of one chunk as 64 lowercase hex characters (what `X-Platform-Signature` carries, so no decoding is needed to compare). */
  hmacSha256Hex(key: HmacKey, data: Data): string | Promise<string>
}

interface NodeHmac {
  update(data: Data): NodeHmac
  digest(): Uint8Array
  digest(encoding: "hex"): string
}

interface NodeCrypto {
  createHmac(algorithm: "sha256", key: unknown): NodeHmac
  createSecretKey(key: Uint8Array): unknown
}

/** The backend over node:crypto (Node, Bun, Deno): synchronous and fast for small bodies. */
export function nodeBackend(nodeCrypto: NodeCrypto): CryptoBackend {
  return {
    name: "node",
    hmacSha256(key, parts) {
      const hmac = nodeCrypto.createHmac("sha256", (key.node ??= nodeCrypto.createSecretKey(key.bytes)))
      for (const part of parts) hmac.update(part)
      return hmac.digest()
    },
    hmacSha256Hex(key, data) {
      // A hex string straight from the native digest: no byte buffer (with its own backing store) is allocated per call.
      return nodeCrypto.createHmac("sha256", (key.node ??= nodeCrypto.createSecretKey(key.bytes))).update(data).digest("hex")
    }
  }
}

/** The backend over WebCrypto `crypto.subtle` (browsers, edge runtimes, and any runtime without node:crypto). */
export function webCryptoBackend(subtle: SubtleCrypto): CryptoBackend {
  const hmacSha256 = async (key: HmacKey, parts: ReadonlyArray<Data>): Promise<Uint8Array> => {
    // The imported CryptoKey is cached on the HmacKey, i.e. once per secret (see KeyCache).
    const cryptoKey = await (key.web ??= subtle.importKey(
      "raw",
      key.bytes as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"]
    ))
    const data = parts.length === 1 ? toBytes(parts[0]!) : concatBytes(parts.map((part) => toBytes(part)))
    return new Uint8Array(await subtle.sign("HMAC", cryptoKey, data as Uint8Array<ArrayBuffer>))
  }
  return {
    name: "webcrypto",
    hmacSha256,
    // sign + our own constant-time compare rather than subtle.verify: measured no faster on Node, and the
    // comparison's timing then does not depend on how a given runtime implements verify.
    hmacSha256Hex: async (key, data) => bytesToHex(await hmacSha256(key, [data]))
  }
}

interface ProcessLike {
  readonly versions?: { readonly node?: string }
  readonly getBuiltinModule?: (id: string) => unknown
}

const NODE_CRYPTO = "node:crypto"

function isNodeCrypto(value: unknown): value is NodeCrypto {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as NodeCrypto).createHmac === "function" &&
    typeof (value as NodeCrypto).createSecretKey === "function"
  )
}

function webCryptoOrThrow(): CryptoBackend {
  const subtle = globalThis.crypto?.subtle
  if (subtle === undefined) {
    throw misuse("this runtime has neither node:crypto nor WebCrypto (globalThis.crypto.subtle); HMAC-SHA256 is unavailable")
  }
  return webCryptoBackend(subtle)
}

/** Picks a backend without importing anything: node:crypto via process.getBuiltinModule when present, WebCrypto when not node-like. */
function detectSync(): CryptoBackend | undefined {
  const proc = (globalThis as { process?: ProcessLike }).process
  if (typeof proc?.getBuiltinModule === "function") {
    const mod = proc.getBuiltinModule(NODE_CRYPTO)
    if (isNodeCrypto(mod)) return nodeBackend(mod)
  }
  if (proc?.versions?.node === undefined) return webCryptoOrThrow()
  return undefined
}

/** Node-like runtimes without process.getBuiltinModule (Node < 20.16): a dynamic import no bundler follows. */
async function detectAsync(): Promise<CryptoBackend> {
  try {
    const specifier = NODE_CRYPTO
    const mod: unknown = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)
    if (isNodeCrypto(mod)) return nodeBackend(mod)
  } catch {
    // fall through to WebCrypto
  }
  return webCryptoOrThrow()
}

let selected: CryptoBackend | undefined
let pending: Promise<CryptoBackend> | undefined

/** Returns the backend, detecting it lazily on first use. */
export function getBackend(): CryptoBackend | Promise<CryptoBackend> {
  if (selected !== undefined) return selected
  const sync = detectSync()
  if (sync !== undefined) return (selected = sync)
  return (pending ??= detectAsync().then((backend) => (selected = backend)))
}

/** Forces a backend (or, with undefined, re-runs detection on next use); for tests. */
export function setBackend(backend: CryptoBackend | undefined): void {
  selected = backend
  pending = undefined
}

/** Exposed for tests: the asynchronous detection path. */
export const detectBackendAsync = detectAsync

/** Computes HMAC-SHA256 of the concatenated parts with the current backend. */
export function hmacSha256(key: HmacKey, parts: ReadonlyArray<Data>): Uint8Array | Promise<Uint8Array> {
  const backend = selected ?? getBackend()
  if (backend instanceof Promise) return backend.then((b) => b.hmacSha256(key, parts))
  return backend.hmacSha256(key, parts)
}

/** Computes HMAC-SHA256 of one chunk as lowercase hex with the current backend; synchronous whenever the backend is. */
export function hmacSha256Hex(key: HmacKey, data: Data): string | Promise<string> {
  const backend = selected ?? getBackend()
  if (backend instanceof Promise) return backend.then((b) => b.hmacSha256Hex(key, data))
  return backend.hmacSha256Hex(key, data)
}

/** How many keys each cache holds at most. */
export const MAX_CACHED_KEYS = 64

/**
 * A bounded least-recently-used cache of HMAC keys by secret string, so a secret's bytes are derived (and its
 * node:crypto KeyObject or WebCrypto CryptoKey created) once rather than per delivery. Keys are looked up by the
 * secret's full content, so two different secrets never share a key; the most recently used secret is
 * remembered separately so the usual single-secret receiver skips even the Map lookup.
 */
export class KeyCache {
  private readonly keys = new Map<string, HmacKey>()
  private readonly derive: (secret: string, fn: string) => Uint8Array
  private readonly max: number
  private lastSecret: string | undefined
  private lastKey: HmacKey | undefined

  constructor(derive: (secret: string, fn: string) => Uint8Array, max: number = MAX_CACHED_KEYS) {
    this.derive = derive
    this.max = max
  }

  /** The key of `secret`, derived on first use (a derivation error is thrown to the caller and nothing is cached). */
  get(secret: string, fn: string): HmacKey {
    if (secret === this.lastSecret) return this.lastKey!
    let key = this.keys.get(secret)
    if (key === undefined) {
      key = { bytes: this.derive(secret, fn) }
      if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value!)
    } else {
      this.keys.delete(secret) // re-inserted below as the most recently used
    }
    this.keys.set(secret, key)
    this.lastSecret = secret
    this.lastKey = key
    return key
  }

  /** Number of cached keys (for tests). */
  get size(): number {
    return this.keys.size
  }
}

/** X-Platform-Signature keys: the secret string's UTF-8 bytes, exactly as given. */
export const platformKeys = /* @__PURE__ */ new KeyCache((secret) => utf8(secret))

/** Standard Webhooks keys: the base64-decoded part after `whsec_`. */
export const standardKeys = /* @__PURE__ */ new KeyCache((secret, fn) => {
  const encoded = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret
  const bytes = base64ToBytes(encoded)
  if (bytes === null || bytes.length === 0) {
    throw misuse(
      `${fn}() needs a Standard Webhooks secret of the form whsec_<base64>; the part after whsec_ is not valid non-empty base64`
    )
  }
  return bytes
})

/** The X-Platform-Signature key of a secret: the secret string's UTF-8 bytes, exactly as given. */
export function platformKey(secret: string): HmacKey {
  return platformKeys.get(secret, "verify")
}

/** The Standard Webhooks key of a secret: the base64-decoded part after `whsec_`. */
export function standardKey(secret: string, fn: string): HmacKey {
  return standardKeys.get(secret, fn)
}
