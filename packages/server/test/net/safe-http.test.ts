import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { createServer as createTlsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { staticResolver } from "../../src/net/dns-resolver.js"
import { closeSafeHttpPools, safeHttpPoolCount } from "../../src/net/pinned-pools.js"
import { safeDownload } from "../../src/net/safe-download.js"
import { safeFetch } from "../../src/net/safe-fetch.js"
import { checkUrl } from "../../src/net/ssrf.js"
import { eventually } from "../support/receiver.js"

afterAll(() => closeSafeHttpPools())

interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

interface Receiver {
  readonly port: number
  readonly url: string
  readonly seen: Array<Seen>
  /** TCP connections accepted so far. */
  readonly connections: () => number
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** A real node:http server on 127.0.0.1 and an ephemeral port, closed with the scope. */
const receiver = (handler: Handler): Effect.Effect<Receiver, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ server: ReturnType<typeof createServer>; receiver: Receiver }>((resolve) => {
        const seen: Array<Seen> = []
        let connections = 0
        const server = createServer((req, res) => {
          const chunks: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => chunks.push(chunk))
          req.on("end", () => {
            const body = Buffer.concat(chunks).toString("utf8")
            seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body })
            handler(req, res, body)
          })
        })
        server.keepAliveTimeout = 60_000
        server.on("connection", () => {
          connections++
        })
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as AddressInfo).port
          resolve({ server, receiver: { port, url: `http://127.0.0.1:${port}`, seen, connections: () => connections } })
        })
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ receiver }) => receiver))

/** A port on 127.0.0.1 where nothing listens. */
const closedPort = Effect.promise(() =>
  new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      server.close(() => resolve(port))
    })
  })
)

const ok: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "text/plain" })
  res.end("ok")
}

const MEGABYTE = 1_000_000

describe("safeFetch against a loopback receiver (allowLocal)", () => {
  it.scopedLive("returns status, lower-case headers and a 512-byte snippet of a 1 MB body", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_req, res) => {
        res.writeHead(201, { "Content-Type": "text/plain", "X-Receiver": "yes" })
        res.end("a".repeat(MEGABYTE))
      })
      const response = yield* safeFetch(`${server.url}/hook`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{\"id\":1}",
        timeoutMs: 5_000,
        allowLocal: true
      })
      expect(response.status).toBe(201)
      expect(response.headers["x-receiver"]).toBe("yes")
      expect(response.headers["content-type"]).toBe("text/plain")
      expect(response.snippet).toBe("a".repeat(512))
      expect(response.bodyBytesRead).toBe(MEGABYTE)
      expect(response.bodyComplete).toBe(true)
      expect(response.pinned).toBe("127.0.0.1")
      expect(response.latencyMs).toBeGreaterThanOrEqual(0)
      expect(server.seen).toEqual([
        expect.objectContaining({ method: "POST", path: "/hook", body: "{\"id\":1}" })
      ])
    }))

  it.scopedLive("stops reading and drops the connection once the body passes maxResponseBytes", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_req, res) => {
        res.writeHead(200)
        res.end("b".repeat(MEGABYTE))
      })
      const response = yield* safeFetch(server.url, {
        method: "GET",
        maxResponseBytes: 64 * 1024,
        allowLocal: true
      })
      expect(response.status).toBe(200)
      expect(response.snippet).toBe("b".repeat(512))
      expect(response.bodyComplete).toBe(false)
      expect(response.bodyBytesRead).toBeLessThan(MEGABYTE)
    }))

  it.scopedLive("keeps the Host header of the checked URL and ignores caller attempts to override it", () =>
    Effect.gen(function*() {
      const server = yield* receiver(ok)
      const target = yield* checkUrl(`http://receiver.test:${server.port}/in?x=1#frag`, {
        allowLocal: true,
        resolver: staticResolver({ "receiver.test": ["127.0.0.1"] })
      })
      yield* safeFetch(target, {
        method: "POST",
        headers: { Host: "169.254.169.254", "X-Custom": "kept", Connection: "close" },
        body: new TextEncoder().encode("bytes")
      })
      expect(server.seen[0]?.headers.host).toBe(`receiver.test:${server.port}`)
      expect(server.seen[0]?.headers["x-custom"]).toBe("kept")
      expect(server.seen[0]?.path).toBe("/in?x=1")
      expect(server.seen[0]?.body).toBe("bytes")
    }))

  it.scopedLive("connects to the pinned address, never re-resolving the hostname (DNS rebinding)", () =>
    Effect.gen(function*() {
      const server = yield* receiver(ok)
      // `.test` never resolves in real DNS: the request can only succeed by using the pinned address.
      const target = yield* checkUrl(`http://rebind.test:${server.port}/`, {
        allowLocal: true,
        resolver: staticResolver({ "rebind.test": ["127.0.0.1"] })
      })
      const response = yield* safeFetch(target, { method: "POST", body: "{}" })
      expect(response.status).toBe(200)
      expect(response.pinned).toBe("127.0.0.1")
      expect(server.seen).toHaveLength(1)
    }))

  it.scopedLive("reuses one keep-alive connection and one pool for many sequential requests", () =>
    Effect.gen(function*() {
      const server = yield* receiver(ok)
      const target = yield* checkUrl(`${server.url}/hook`, { allowLocal: true })
      const poolsBefore = safeHttpPoolCount()
      for (let i = 0; i < 50; i++) {
        const response = yield* safeFetch(target, { method: "POST", body: `{"n":${i}}` })
        expect(response.status).toBe(200)
      }
      // A string target checked again on each call reuses the same pool too.
      yield* safeFetch(`${server.url}/hook`, { method: "POST", body: "{}", allowLocal: true })
      expect(server.seen).toHaveLength(51)
      expect(server.connections()).toBe(1)
      expect(safeHttpPoolCount()).toBe(poolsBefore + 1)
    }))

  const redirects = [301, 302, 303, 307, 308]

  it.scopedLive.each(redirects)("returns a %s as a response and does not follow it", (status) =>
    Effect.gen(function*() {
      const elsewhere = yield* receiver(ok)
      const server = yield* receiver((_req, res) => {
        res.writeHead(status, { location: `${elsewhere.url}/stolen` })
        res.end()
      })
      const response = yield* safeFetch(server.url, { method: "POST", body: "{}", allowLocal: true })
      expect(response.status).toBe(status)
      expect(response.headers.location).toBe(`${elsewhere.url}/stolen`)
      expect(elsewhere.seen).toHaveLength(0)
    }))

  it.scopedLive("does not follow a 302 to a private address (http://10.0.0.1/)", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_req, res) => {
        res.writeHead(302, { location: "http://10.0.0.1/" })
        res.end()
      })
      const response = yield* safeFetch(server.url, { method: "POST", body: "{}", timeoutMs: 2_000, allowLocal: true })
      expect(response.status).toBe(302)
      expect(response.headers.location).toBe("http://10.0.0.1/")
      expect(server.seen).toHaveLength(1)
    }))

  it.scopedLive("fails with SafeHttpTimeout when no response arrives within timeoutMs", () =>
    Effect.gen(function*() {
      const server = yield* receiver(() => {
        // never answers
      })
      const started = Date.now()
      const error = yield* Effect.flip(safeFetch(server.url, { method: "POST", body: "{}", timeoutMs: 300, allowLocal: true }))
      expect(error._tag).toBe("SafeHttpTimeout")
      expect(error.reason).toBe("no response within 300 ms")
      expect(Date.now() - started).toBeLessThan(5_000)
    }))

  it.scopedLive("keeps the status when the body stalls past the deadline and marks the body incomplete", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("partial")
      })
      const response = yield* safeFetch(server.url, { method: "POST", body: "{}", timeoutMs: 300, allowLocal: true })
      expect(response.status).toBe(200)
      expect(response.snippet).toBe("partial")
      expect(response.bodyComplete).toBe(false)
    }))

  // A pool runs 128 requests at once (one per connection). A receiver answering each in
  // 1 s, with a 1.6 s timeout: the requests beyond the first 128 wait for a connection,
  // and their timeout counts from then (before, they timed out queued: sent at 1 s,
  // answered at 2 s, past a deadline started at 0).
  const slowReceiver = receiver((req, res) => {
    setTimeout(() => ok(req, res, ""), 1_000)
  })
  const burst = (url: string, n: number) =>
    Effect.forEach(
      Array.from({ length: n }, (_, i) => i),
      (i) => Effect.either(safeFetch(`${url}/hook/${i}`, { method: "POST", body: "{}", timeoutMs: 1_600, allowLocal: true })),
      { concurrency: "unbounded" }
    )

  it.scopedLive("gives every request of a burst beyond the pool's 128 connections its whole timeout from its turn", () =>
    Effect.gen(function*() {
      const server = yield* slowReceiver
      const results = yield* burst(server.url, 256)
      const answered = results.flatMap((r) => (r._tag === "Right" ? [r.right] : []))
      expect(answered).toHaveLength(256)
      expect(answered.every((r) => r.status === 200)).toBe(true)
      // Latency is the receiver's (about 1 s each), not the time spent waiting for a connection.
      expect(Math.max(...answered.map((r) => r.latencyMs))).toBeLessThan(1_600)
      expect(server.seen).toHaveLength(256)
      expect(server.connections()).toBeLessThanOrEqual(128)
    }))

  it.scopedLive("fails a request that waits for a connection longer than its timeout, without sending it", () =>
    Effect.gen(function*() {
      // The receiver holds every request until the test releases it, so the pool's 128 connections stay
      // busy for as long as the test needs: what is checked is the wait, not how fast a loaded machine runs.
      const held: Array<() => void> = []
      const server = yield* receiver((req, res) => held.push(() => ok(req, res, "")))
      const send = (path: string, timeoutMs: number) =>
        safeFetch(`${server.url}${path}`, { method: "POST", body: "{}", timeoutMs, allowLocal: true })
      const answerHeld = Effect.sync(() => held.splice(0).forEach((answer) => answer()))
      const busy = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 128 }, (_, i) => i), (i) => send(`/hook/${i}`, 60_000), { concurrency: "unbounded" })
      )
      yield* eventually(Effect.sync(() => (server.seen.length === 128 ? true : undefined)))

      // Eight more wait for a connection past their 300 ms; a wait is checked when a connection frees up.
      const late = yield* Effect.fork(Effect.forEach(
        Array.from({ length: 8 }, (_, i) => i),
        (i) => Effect.flip(send(`/late/${i}`, 300)),
        { concurrency: "unbounded" }
      ))
      yield* Effect.sleep("600 millis")
      expect(server.seen).toHaveLength(128)
      yield* answerHeld
      for (const error of yield* Fiber.join(late)) {
        expect(error._tag).toBe("SafeHttpTimeout")
        expect(error.reason).toBe("no connection to the receiver free within 300 ms (all 128 busy)")
      }
      expect((yield* Fiber.join(busy)).map((r) => r.status)).toEqual(Array.from({ length: 128 }, () => 200))

      // None of the late ones was sent, then or later: the next request is the next the receiver sees.
      const next = yield* Effect.fork(send("/next", 60_000))
      yield* eventually(Effect.sync(() => (server.seen.length > 128 ? true : undefined)))
      yield* answerHeld
      expect((yield* Fiber.join(next)).status).toBe(200)
      expect(server.seen.map((r) => r.path).filter((path) => !path.startsWith("/hook/"))).toEqual(["/next"])
    }))

  it.scopedLive("fails with SafeHttpConnectionError ECONNREFUSED when nothing listens", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = yield* Effect.flip(
        safeFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}", allowLocal: true })
      )
      expect(error._tag).toBe("SafeHttpConnectionError")
      expect(error._tag === "SafeHttpConnectionError" && error.code).toBe("ECONNREFUSED")
      expect(error.reason).toContain("connection refused")
    }))

  it.scopedLive("fails with SafeHttpTlsError when an https target does not speak TLS", () =>
    Effect.gen(function*() {
      const server = yield* receiver(ok)
      const error = yield* Effect.flip(
        safeFetch(`https://127.0.0.1:${server.port}/`, { method: "POST", body: "{}", allowLocal: true })
      )
      expect(error._tag).toBe("SafeHttpTlsError")
    }))

  it.scopedLive("sends the original hostname as TLS SNI and still verifies the certificate", () =>
    Effect.gen(function*() {
      const sni: Array<string> = []
      const port = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<{ port: number; close: () => Promise<void> }>((resolve) => {
            const server = createTlsServer({
              key: SELF_SIGNED_KEY,
              cert: SELF_SIGNED_CERT,
              SNICallback: (servername, callback) => {
                sni.push(servername)
                callback(null, undefined)
              }
            }, (_req, res) => res.end("tls"))
            server.listen(0, "127.0.0.1", () =>
              resolve({
                port: (server.address() as AddressInfo).port,
                close: () =>
                  new Promise<void>((done) => {
                    server.closeAllConnections()
                    server.close(() => done())
                  })
              }))
          })
        ),
        (server) => Effect.promise(server.close)
      ).pipe(Effect.map((server) => server.port))
      const target = yield* checkUrl(`https://receiver.test:${port}/`, {
        allowLocal: true,
        resolver: staticResolver({ "receiver.test": ["127.0.0.1"] })
      })
      const error = yield* Effect.flip(safeFetch(target, { method: "POST", body: "{}" }))
      expect(sni).toEqual(["receiver.test"])
      expect(error._tag).toBe("SafeHttpTlsError") // self-signed: verification is on
    }))

  it.scopedLive("refuses a string target that fails the SSRF guard before connecting", () =>
    Effect.gen(function*() {
      const server = yield* receiver(ok)
      const error = yield* Effect.flip(safeFetch(server.url, { method: "POST", body: "{}", allowLocal: false }))
      expect(error._tag).toBe("SsrfRejected")
      expect(error.reason).toBe("target URL must use https (http is not allowed)")
      const metadata = yield* Effect.flip(
        safeFetch("http://169.254.169.254/latest/meta-data/", { method: "GET", allowLocal: true })
      )
      expect(metadata.reason).toBe("target is a cloud metadata address (169.254.169.254)")
      expect(server.seen).toHaveLength(0)
    }))
})

describe("safeDownload (media from URL)", () => {
  it.scopedLive("returns the bytes and the content type", () =>
    Effect.gen(function*() {
      const image = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])
      const server = yield* receiver((_req, res) => {
        res.writeHead(200, { "content-type": "image/png" })
        res.end(image)
      })
      const download = yield* safeDownload(`${server.url}/a.png`, { allowLocal: true, maxBytes: 1024 })
      expect(download.bytes).toEqual(image)
      expect(download.contentType).toBe("image/png")
      expect(download.status).toBe(200)
    }))

  const oversized: ReadonlyArray<{ readonly label: string; readonly handler: Handler }> = [
    {
      label: "a declared Content-Length",
      handler: (_req, res) => {
        res.writeHead(200, { "content-length": String(MEGABYTE) })
        res.end("c".repeat(MEGABYTE))
      }
    },
    {
      label: "an endless chunked body",
      handler: (_req, res) => {
        res.writeHead(200, { "content-type": "video/mp4" })
        const timer = setInterval(() => {
          if (!res.write("d".repeat(16 * 1024))) return
        }, 1)
        res.on("close", () => clearInterval(timer))
      }
    }
  ]

  it.scopedLive.each(oversized)("aborts with too_large on $label beyond maxBytes", ({ handler }) =>
    Effect.gen(function*() {
      const server = yield* receiver(handler)
      const error = yield* Effect.flip(
        safeDownload(server.url, { allowLocal: true, maxBytes: 100 * 1024, timeoutMs: 5_000 })
      )
      expect(error._tag).toBe("SafeDownloadRefused")
      expect(error._tag === "SafeDownloadRefused" && error.kind).toBe("too_large")
      expect(error.reason).toBe("the download exceeds 102400 bytes")
    }))

  it.scopedLive("refuses a redirect without following it", () =>
    Effect.gen(function*() {
      const elsewhere = yield* receiver(ok)
      const server = yield* receiver((_req, res) => {
        res.writeHead(302, { location: elsewhere.url })
        res.end()
      })
      const error = yield* Effect.flip(safeDownload(server.url, { allowLocal: true, maxBytes: 1024 }))
      expect(error._tag === "SafeDownloadRefused" && error.kind).toBe("redirect")
      expect(error.reason).toBe("the URL answered a redirect (302); redirects are not followed")
      expect(elsewhere.seen).toHaveLength(0)
    }))

  it.scopedLive("refuses a non-2xx answer", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_req, res) => {
        res.writeHead(404)
        res.end("missing")
      })
      const error = yield* Effect.flip(safeDownload(server.url, { allowLocal: true, maxBytes: 1024 }))
      expect(error._tag === "SafeDownloadRefused" && error.status).toBe(404)
    }))

  it.scopedLive("times out a download that stalls", () =>
    Effect.gen(function*() {
      const server = yield* receiver((_req, res) => {
        res.writeHead(200)
        res.write("x")
      })
      const error = yield* Effect.flip(safeDownload(server.url, { allowLocal: true, maxBytes: 1024, timeoutMs: 300 }))
      expect(error._tag).toBe("SafeHttpTimeout")
    }))

  it.scopedLive("refuses a URL that fails the SSRF guard without connecting", () =>
    Effect.gen(function*() {
      const server = yield* receiver(ok)
      const error = yield* Effect.flip(
        safeDownload(`https://media.example:${server.port}/a.png`, {
          allowLocal: false,
          maxBytes: 1024,
          resolver: staticResolver({ "media.example": ["127.0.0.1"] })
        })
      )
      expect(error.reason).toBe("target resolves to a loopback address (127.0.0.1)")
      expect(server.seen).toHaveLength(0)
    }))
})

/** Self-signed certificate for CN/SAN receiver.test (valid until 2126), for the SNI test only. */
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgxIEUbZ3PHwD27PIx
uiNsyIBRLBp28s2kDJaRtY3xxaGhRANCAARSqVpyI3QPyxbFCixevoInax5XuJsX
YFayR3n2InB69O0BLP/Fv4laZlIfmY16k+QNzoMT7K6JJbEd8mlJ20M3
-----END PRIVATE KEY-----
`

const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBojCCAUegAwIBAgIUVoTyDl7ugwalSNqDTLwBcABlXmcwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDAgFw0yNjExMjEwMDMxMTlaGA8yMTI2
MTAyODAwMzExOVowGDEWMBQGA1UEAwwNcmVjZWl2ZXIudGVzdDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABFKpWnIjdA/LFsUKLF6+gidrHle4mxdgVrJHefYicHr0
7QEs/8W/iVpmUh+ZjXqT5A3OgxPsroklsR3yaUnbQzejbTBrMB0GA1UdDgQWBBSB
D2myaKaFLCKRPO8cTjXHEVJ1KzAfBgNVHSMEGDAWgBSBD2myaKaFLCKRPO8cTjXH
EVJ1KzAPBgNVHRMBAf8EBTADAQH/MBgGA1UdEQQRMA+CDXJlY2VpdmVyLnRlc3Qw
CgYIKoZIzj0EAwIDSQAwRgIhAM1pLy8BkIenWI3HhvHZW38pBiaRpisCs/dfoIPG
I/cWAiEAsNEGjsu4f9AW+00lRGXOxwPYerxX8t14Zj+HLAtm8w8=
-----END CERTIFICATE-----
`
