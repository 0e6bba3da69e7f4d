import { base64ToBytes, concatBytes, toBytes, utf8 } from "./encoding.js"
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
  hmacSha256(key: HmacKey, parts: ReadonlyArray<Data>): Uint8Array | Promise<Uint8Array>
}

interface NodeHmac {
  update(data: Data): NodeHmac
  digest(): Uint8Array
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
    }
  }
}

/** The backend over WebCrypto `crypto.subtle` (browsers, edge runtimes, and any runtime without node:crypto). */
export function webCryptoBackend(subtle: SubtleCrypto): CryptoBackend {
  return {
    name: "webcrypto",
    async hmacSha256(key, parts) {
      const cryptoKey = await (key.web ??= subtle.importKey(
        "raw",
        key.bytes as Uint8Array<ArrayBuffer>,
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"]
      ))
      const data = concatBytes(parts.map((part) => toBytes(part)))
      return new Uint8Array(await subtle.sign("HMAC", cryptoKey, data as Uint8Array<ArrayBuffer>))
    }
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
  const backend = getBackend()
  if (backend instanceof Promise) return backend.then((b) => b.hmacSha256(key, parts))
  return backend.hmacSha256(key, parts)
}

const MAX_CACHED_KEYS = 64

function cached(cache: Map<string, HmacKey>, secret: string, derive: () => Uint8Array): HmacKey {
  let key = cache.get(secret)
  if (key === undefined) {
    if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value!)
    key = { bytes: derive() }
    cache.set(secret, key)
  }
  return key
}

const platformKeys = new Map<string, HmacKey>()
const standardKeys = new Map<string, HmacKey>()

/** The X-Platform-Signature key of a secret: the secret string's UTF-8 bytes, exactly as given. */
export function platformKey(secret: string): HmacKey {
  return cached(platformKeys, secret, () => utf8(secret))
}

/** The Standard Webhooks key of a secret: the base64-decoded part after `whsec_`. */
export function standardKey(secret: string, fn: string): HmacKey {
  return cached(standardKeys, secret, () => {
    const encoded = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret
    const bytes = base64ToBytes(encoded)
    if (bytes === null || bytes.length === 0) {
      throw misuse(
        `${fn}() needs a Standard Webhooks secret of the form whsec_<base64>; the part after whsec_ is not valid non-empty base64`
      )
    }
    return bytes
  })
}
