import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  detectBackendAsync,
  getBackend,
  KeyCache,
  MAX_CACHED_KEYS,
  platformKey,
  platformKeys,
  setBackend,
  standardKey,
  standardKeys,
  webCryptoBackend
} from "../src/crypto.js"
import { bytesToHex, isLowerHex, timingSafeEqualText } from "../src/encoding.js"
import { verify, verifyAndParse, verifyWithFallback } from "../src/index.js"
import { sign } from "../src/testing.js"
import { platformVectors } from "./helpers.js"

/** Runs `fn` synchronously with a global replaced, restoring it afterwards. */
function withGlobal<T>(name: "process" | "crypto", value: unknown, fn: () => T): T {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, name)!
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
  try {
    return fn()
  } finally {
    Object.defineProperty(globalThis, name, descriptor)
  }
}

afterEach(() => setBackend(undefined))

describe("crypto backend selection", () => {
  it("selects node:crypto synchronously on Node via process.getBuiltinModule", () => {
    setBackend(undefined)
    const backend = getBackend()
    expect(backend).not.toBeInstanceOf(Promise)
    expect((backend as { name: string }).name).toBe("node")
    expect(getBackend()).toBe(backend)
  })

  it("selects WebCrypto when the runtime is not Node-like (browsers, edge)", () => {
    setBackend(undefined)
    const backend = withGlobal("process", undefined, () => getBackend())
    expect((backend as { name: string }).name).toBe("webcrypto")
  })

  it("falls back to a dynamic import of node:crypto on Node without getBuiltinModule", async () => {
    setBackend(undefined)
    const pending = withGlobal("process", { versions: { node: "20.0.0" } }, () => getBackend())
    expect(pending).toBeInstanceOf(Promise)
    expect((await pending).name).toBe("node")
    expect(getBackend()).toBe(await pending)
  })

  it("computes HMACs while detection is still pending", async () => {
    setBackend(undefined)
    const { hmacSha256 } = await import("../src/crypto.js")
    const vector = platformVectors[0]!
    const digest = withGlobal("process", { versions: { node: "20.0.0" } }, () => hmacSha256(platformKey(vector.secret), [vector.body]))
    expect(digest).toBeInstanceOf(Promise)
    expect(`sha256=${bytesToHex(await digest)}`).toBe(vector.header)
  })

  it("computes hex HMACs while detection is still pending", async () => {
    setBackend(undefined)
    const { hmacSha256Hex } = await import("../src/crypto.js")
    const vector = platformVectors[0]!
    const digest = withGlobal("process", { versions: { node: "20.0.0" } }, () => hmacSha256Hex(platformKey(vector.secret), vector.body))
    expect(digest).toBeInstanceOf(Promise)
    expect(`sha256=${await digest}`).toBe(vector.header)
  })

  it("throws a package-prefixed TypeError when neither node:crypto nor WebCrypto exists", () => {
    setBackend(undefined)
    expect(() => withGlobal("process", undefined, () => withGlobal("crypto", undefined, () => getBackend()))).toThrow(
      /^@platform\/webhook-verify: this runtime has neither node:crypto nor WebCrypto/
    )
  })

  it("the asynchronous detection resolves to node:crypto on Node", async () => {
    expect((await detectBackendAsync()).name).toBe("node")
  })

  it.each(platformVectors)("node:crypto and WebCrypto agree on $name", async (vector) => {
    const node = await detectBackendAsync()
    const web = webCryptoBackend(globalThis.crypto.subtle)
    const parts = ["prefix.", new TextEncoder().encode(vector.body)]
    const key = { bytes: new TextEncoder().encode(vector.secret) }
    expect(bytesToHex(await web.hmacSha256(key, parts))).toBe(bytesToHex(await node.hmacSha256(key, parts)))
  })

  it.each(platformVectors)("both backends' hex digests of $name are the header's digits, as a string or as bytes", async (vector) => {
    const node = await detectBackendAsync()
    const web = webCryptoBackend(globalThis.crypto.subtle)
    const hex = vector.header.slice("sha256=".length)
    for (const body of [vector.body, new TextEncoder().encode(vector.body)]) {
      for (const backend of [node, web]) {
        const key = { bytes: new TextEncoder().encode(vector.secret) }
        expect(await backend.hmacSha256Hex(key, body)).toBe(hex)
      }
    }
  })
})

describe("key cache", () => {
  it("reuses the key of a secret and evicts the oldest beyond 64 secrets", () => {
    const first = platformKey("whsec_cache_first")
    expect(platformKey("whsec_cache_first")).toBe(first)
    for (let i = 0; i < 64; i++) platformKey(`whsec_cache_${i}`)
    expect(platformKey("whsec_cache_first")).not.toBe(first)
  })

  it("keys Standard Webhooks with the base64-decoded part after whsec_", () => {
    expect(Array.from(standardKey("whsec_AQID", "test").bytes)).toEqual([1, 2, 3])
  })

  it("is bounded: never more than MAX_CACHED_KEYS keys per cache, however many secrets pass through", () => {
    for (let i = 0; i < 3 * MAX_CACHED_KEYS; i++) {
      platformKey(`whsec_bounded_${i}`)
      expect(platformKeys.size).toBeLessThanOrEqual(MAX_CACHED_KEYS)
    }
    expect(platformKeys.size).toBe(MAX_CACHED_KEYS)
  })

  it("evicts the least recently used key, not the first inserted", () => {
    const derived: string[] = []
    const cache = new KeyCache((secret) => {
      derived.push(secret)
      return new TextEncoder().encode(secret)
    }, 3)
    const a = cache.get("a", "test")
    cache.get("b", "test")
    cache.get("c", "test")
    expect(cache.get("a", "test")).toBe(a) // a becomes the most recently used
    cache.get("d", "test") // evicts b, the least recently used
    expect(cache.size).toBe(3)
    expect(cache.get("a", "test")).toBe(a)
    cache.get("c", "test")
    cache.get("b", "test") // derived again
    expect(derived).toEqual(["a", "b", "c", "d", "b"])
  })

  it("never hands a secret another secret's key, also when alternating (the last-used shortcut)", () => {
    const cache = new KeyCache((secret) => new TextEncoder().encode(secret), 2)
    const sequence = ["s1", "s2", "s1", "s1", "s3", "s2", "s1", "s3", "s3", "s2"]
    for (const secret of sequence) {
      expect(new TextDecoder().decode(cache.get(secret, "test").bytes)).toBe(secret)
    }
    // equal content from a different string object is the same secret, so it may share the key
    const built = ["s", "3"].join("")
    expect(cache.get(built, "test")).toBe(cache.get("s3", "test"))
    expect(platformKey("whsec_one")).not.toBe(platformKey("whsec_two"))
    expect(new TextDecoder().decode(platformKey("whsec_one").bytes)).toBe("whsec_one")
  })

  it("keeps X-Platform-Signature and Standard Webhooks keys of the same secret apart", () => {
    const secret = "whsec_AQID"
    expect(Array.from(standardKey(secret, "test").bytes)).toEqual([1, 2, 3])
    expect(new TextDecoder().decode(platformKey(secret).bytes)).toBe(secret)
    expect(standardKeys.get(secret, "test")).not.toBe(platformKeys.get(secret, "test"))
  })

  it("caches nothing when a Standard Webhooks secret is invalid, and still serves the previous secret", () => {
    const good = standardKey("whsec_AQID", "test")
    const before = standardKeys.size
    expect(() => standardKey("whsec_!!!", "verifyStandard")).toThrow(/^@platform\/webhook-verify: verifyStandard\(\) needs a Standard Webhooks secret/)
    expect(standardKeys.size).toBe(before)
    expect(standardKey("whsec_AQID", "test")).toBe(good)
  })

  it("a signature made with one secret never verifies with another, whatever the order of use", async () => {
    const body = '{"a":1}'
    const [a, b] = ["whsec_order_a", "whsec_order_b"]
    const headerA = await sign(a, body)
    for (const [secret, ok] of [[a, true], [b, false], [a, true], [b, false], [b, false], [a, true]] as const) {
      expect((await verify(secret, body, headerA)).ok).toBe(ok)
    }
  })

  it("imports one WebCrypto CryptoKey per secret, not one per delivery", async () => {
    const subtle = globalThis.crypto.subtle
    let imports = 0
    const counting = {
      importKey: (...args: Parameters<SubtleCrypto["importKey"]>) => {
        imports++
        return subtle.importKey(...args)
      },
      sign: subtle.sign.bind(subtle)
    } as unknown as SubtleCrypto
    setBackend(webCryptoBackend(counting))
    const secret = "whsec_webcrypto_import_count"
    const other = "whsec_webcrypto_import_count_other"
    const body = '{"a":1}'
    const header = await sign(secret, body)
    expect(imports).toBe(1)
    for (let i = 0; i < 5; i++) expect(await verify(secret, body, header)).toEqual({ ok: true, secretIndex: 0 })
    expect(imports).toBe(1)
    for (let i = 0; i < 5; i++) expect((await verify(other, body, header)).ok).toBe(false)
    expect(imports).toBe(2)
    expect(await verifyWithFallback([other, secret], body, header)).toEqual({ ok: true, secretIndex: 1 })
    expect((await verifyAndParse([other, secret], body, header)).ok).toBe(false) // signed, but not an envelope
    expect(imports).toBe(2)
  })
})

describe("hex helpers", () => {
  it("isLowerHex accepts 0-9a-f only, from the given offset", () => {
    expect(isLowerHex("sha256=0123456789abcdef", 7)).toBe(true)
    expect(isLowerHex("sha256=", 7)).toBe(true)
    for (const bad of ["A", "g", "G", " ", "/", ":", "`", "é", "０"]) expect(isLowerHex(`sha256=00${bad}0`, 7)).toBe(false)
  })

  it("timingSafeEqualText compares the tail of a from offset with all of b", () => {
    const hex = "ab".repeat(32)
    expect(timingSafeEqualText(`sha256=${hex}`, 7, hex)).toBe(true)
    expect(timingSafeEqualText(`sha256=${hex}`, 7, `${hex.slice(0, -1)}c`)).toBe(false)
    expect(timingSafeEqualText(`sha256=${hex}`, 7, `c${hex.slice(1)}`)).toBe(false)
    expect(timingSafeEqualText(`sha256=${hex}0`, 7, hex)).toBe(false)
    expect(timingSafeEqualText(`sha256=${hex}`, 7, hex.slice(2))).toBe(false)
  })
})

describe("portability of the core", () => {
  const src = join(import.meta.dirname, "..", "src")
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))

  it.each(files.map((f) => [f]))("%s has no static node: import, no require and no Buffer", (file) => {
    const text = readFileSync(join(src, file), "utf8")
    expect(text).not.toMatch(/from\s+["']node:/)
    expect(text).not.toMatch(/\brequire\(/)
    expect(text).not.toMatch(/\bBuffer\b/)
  })
})
