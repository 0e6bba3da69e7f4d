import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { baseUrl, TestServer } from "../support/server.js"

/** A built console as Vite writes one: index.html and hashed assets. */
const builtConsole = () => {
  const dir = mkdtempSync(join(tmpdir(), "console-"))
  mkdirSync(join(dir, "assets"))
  writeFileSync(join(dir, "index.html"), `<!doctype html><html><body><div id="root"></div><script type="module" src="/dashboard/assets/index-AbC123.js"></script></body></html>`)
  writeFileSync(join(dir, "assets", "index-AbC123.js"), `console.log(${JSON.stringify("x".repeat(4000))})`)
  writeFileSync(join(dir, "assets", "index-DeF456.css"), "body{margin:0}")
  writeFileSync(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>")
  return dir
}

const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const res = await fetch(`${base}${path}`, { headers, redirect: "manual" })
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) }
    }))

/** A GET through node:http, which shows the bytes on the wire (undici decompresses on its own). */
const onTheWire = (path: string, acceptEncoding: string) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const { request } = await import("node:http")
      return new Promise<{ encoding: string | undefined; vary: string | undefined; cacheControl: string | undefined; bytes: Buffer }>((resolve, reject) => {
        request(`${base}${path}`, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => resolve({ encoding: res.headers["content-encoding"], vary: res.headers.vary, cacheControl: res.headers["cache-control"], bytes: Buffer.concat(chunks) }))
        }).on("error", reject).end()
      })
    }))

layer(TestServer({ DASHBOARD_DIR: builtConsole() }), { timeout: 60_000 })("the console, built", (it) => {
  it.effect("/ redirects to /dashboard, which serves index.html as uncached HTML with a strict CSP", () =>
    Effect.gen(function*() {
      const root = yield* get("/")
      expect(root.status).toBe(302)
      expect(root.headers.get("location")).toBe("/dashboard")
      const page = yield* get("/dashboard")
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(page.headers.get("cache-control")).toBe("no-cache")
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(page.headers.get("x-request-id")).toBeTruthy()
      expect(page.body.toString()).toContain(`<div id="root">`)
    }))

  it.effect("a deep link under /dashboard (with a query string) is the SPA's index.html", () =>
    Effect.gen(function*() {
      for (const path of ["/dashboard/", "/dashboard/webhooks/deliveries?status=failed&event_type=message.received", "/dashboard/api-keys"]) {
        const page = yield* get(path)
        expect(page.status, path).toBe(200)
        expect(page.headers.get("content-type"), path).toBe("text/html; charset=utf-8")
        expect(page.body.toString(), path).toContain(`<div id="root">`)
      }
    }))

  it.effect("hashed assets: their content type, a year of immutable caching, gzip when accepted", () =>
    Effect.gen(function*() {
      const plain = yield* get("/dashboard/assets/index-AbC123.js", { "accept-encoding": "identity" })
      expect(plain.status).toBe(200)
      expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(plain.headers.get("content-encoding")).toBeNull()
      const css = yield* get("/dashboard/assets/index-DeF456.css")
      expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
      const svg = yield* get("/dashboard/favicon.svg")
      expect([svg.status, svg.headers.get("content-type"), svg.headers.get("cache-control")]).toEqual([200, "image/svg+xml", "no-cache"])
      const zipped = yield* onTheWire("/dashboard/assets/index-AbC123.js", "gzip, deflate")
      expect(zipped.encoding).toBe("gzip")
      expect(zipped.vary).toBe("accept-encoding")
      expect(zipped.bytes.length).toBeLessThan(plain.body.length)
      expect(gunzipSync(zipped.bytes).equals(plain.body)).toBe(true)
    }))

  it.effect("hashed assets in brotli when the browser takes it (smaller than gzip), gzip when it refuses br with q=0", () =>
    Effect.gen(function*() {
      const plain = yield* get("/dashboard/assets/index-AbC123.js", { "accept-encoding": "identity" })
      const gzipped = yield* onTheWire("/dashboard/assets/index-AbC123.js", "gzip")
      const brotli = yield* onTheWire("/dashboard/assets/index-AbC123.js", "gzip, deflate, br, zstd")
      expect(brotli.encoding).toBe("br")
      expect(brotli.vary).toBe("accept-encoding")
      expect(brotli.cacheControl).toBe("public, max-age=31536000, immutable")
      expect(brotli.bytes.length).toBeLessThan(gzipped.bytes.length)
      expect(brotliDecompressSync(brotli.bytes).equals(plain.body)).toBe(true)
      expect((yield* onTheWire("/dashboard/assets/index-AbC123.js", "br;q=0, gzip")).encoding).toBe("gzip")
      // A file too small to gain from either is sent as it is.
      expect((yield* onTheWire("/dashboard/assets/index-DeF456.css", "br, gzip")).encoding).toBeUndefined()
    }))

  it.effect("index.html revalidates: its ETag answers 304", () =>
    Effect.gen(function*() {
      const page = yield* get("/dashboard/channels")
      const etag = page.headers.get("etag")!
      expect(etag).toMatch(/^".+"$/)
      expect((yield* get("/dashboard/keys", { "if-none-match": etag })).status).toBe(304)
    }))

  it.effect("a missing asset is a 404 in the error shape, never the page; a path out of the build is refused", () =>
    Effect.gen(function*() {
      for (const path of ["/dashboard/assets/index-gone.js", "/dashboard/robots.txt", "/dashboard/assets/%2e%2e%2findex.html", "/dashboard/..%2f..%2fpackage.json"]) {
        const missing = yield* get(path)
        expect(missing.status, path).toBe(404)
        expect(JSON.parse(missing.body.toString()), path).toMatchObject({ detail: { code: "not_found" } })
      }
    }))
})

layer(TestServer(), { timeout: 60_000 })("the console, not built", (it) => {
  it.effect("the server starts; / and /dashboard are 404 as before", () =>
    Effect.gen(function*() {
      for (const path of ["/", "/dashboard", "/dashboard/keys"]) {
        const res = yield* get(path)
        expect(res.status, path).toBe(404)
        expect(JSON.parse(res.body.toString()), path).toMatchObject({ detail: { code: "not_found" } })
      }
      expect((yield* get("/readyz")).status).toBe(200)
    }))
})
