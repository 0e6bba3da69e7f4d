import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { detectBackendAsync, getBackend, platformKey, setBackend, standardKey, webCryptoBackend } from "../src/crypto.js"
import { bytesToHex } from "../src/encoding.js"
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
