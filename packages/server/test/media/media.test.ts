import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { baseUrl } from "../auth/support.js"
import { MessagingTestServer, request, setup, sharedSetup, sql } from "../messages/support.js"

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 200 }, (_, i) => i % 256)])
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...Array.from({ length: 200 }, (_, i) => i % 256)])
const webp = (size: number) => {
  const b = new Uint8Array(size)
  b.set([...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBP")])
  return b
}

/** A loopback file server that counts every request it receives. */
let hits = 0
let receiver: Server | undefined
const receiverUrl = () =>
  Effect.promise(() =>
    new Promise<string>((resolve) => {
      if (receiver) {
        const a = receiver.address()
        return resolve(`http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`)
      }
      receiver = createServer((req, res) => {
        hits++
        if (req.url === "/redirect") return res.writeHead(302, { location: "http://10.0.0.5/x.png" }).end()
        if (req.url === "/big.webp") return res.writeHead(200, { "content-type": "image/webp" }).end(Buffer.from(webp(600 * 1024)))
        res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from(PNG))
      }).listen(0, "127.0.0.1", () => {
        const a = receiver!.address()
        resolve(`http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`)
      })
    })
  )

const upload = (key: string, parts: ReadonlyArray<readonly [string, string | Blob, string?]>, query = "") =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const form = new FormData()
      for (const [name, value, filename] of parts) {
        if (typeof value === "string") form.append(name, value)
        else form.append(name, value, filename)
      }
      const res = await fetch(`${base}/platform/v1/media${query}`, { method: "POST", headers: { "x-api-key": key }, body: form })
      const text = await res.text()
      return { status: res.status, text, body: text ? JSON.parse(text) : null }
    }))

const blob = (bytes: Uint8Array, type: string) => new Blob([bytes as Uint8Array<ArrayBuffer>], { type })

const ctx = sharedSetup("media")

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("media: upload, short-lived URL, delete", (it) => {
  it.effect("a multipart upload streams the file to the upstream and answers the media id; the URL link streams it back without a key", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const up = yield* upload(s.key, [["channel_id", String(s.chat)], ["file", blob(PNG, "image/png"), "cat.png"]])
      expect(up.status, up.text).toBe(200)
      expect(up.body).toEqual({ channel_id: s.chat, media_id: expect.any(String) })
      expect(Buffer.from(state.media.get(up.body.media_id)!.bytes)).toEqual(Buffer.from(PNG))
      const q = yield* sql
      const [row] = yield* q<any>`select mime_type, file_size, filename from media where media_id = ${up.body.media_id}`
      expect(row).toEqual({ mime_type: "image/png", file_size: PNG.length, filename: "cat.png" })

      const link = yield* request("GET", `/platform/v1/media/${up.body.media_id}/url?channel_id=${s.chat}`, { key: s.key })
      expect(link.status, link.text).toBe(200)
      expect(link.body).toEqual({ channel_id: s.chat, url: expect.any(String), mime_type: "image/png", file_size: PNG.length })
      const base = yield* baseUrl
      expect(link.body.url.startsWith(`${base}/platform/v1/media-downloads/`)).toBe(true)
      expect(link.text).not.toMatch(/__sandbox|sandbox_token|EAA/)

      const bytes = yield* Effect.promise(async () => {
        const res = await fetch(link.body.url)
        return { status: res.status, type: res.headers.get("content-type"), body: new Uint8Array(await res.arrayBuffer()) }
      })
      expect({ ...bytes, body: Buffer.from(bytes.body) }).toEqual({ status: 200, type: "image/png", body: Buffer.from(PNG) })

      // The link's path before it moved (it shared /platform/v1/media/download/url with the URL lookup) serves nothing.
      const oldPath = link.body.url.replace("/platform/v1/media-downloads/", "/platform/v1/media/download/")
      const notServed = yield* Effect.promise(() => fetch(oldPath).then(async (r) => ({ status: r.status, type: r.headers.get("content-type") })))
      expect(notServed.status).toBe(404)
      expect(notServed.type).not.toBe("image/png")

      const tampered = link.body.url.replace(/.$/, (c: string) => (c === "A" ? "B" : "A"))
      const refused = yield* Effect.promise(() => fetch(tampered).then(async (r) => ({ status: r.status, body: await r.json() })))
      expect(refused.status).toBe(404)
      expect(refused.body.detail.code).toBe("not_found")

      const deleted = yield* request("DELETE", `/platform/v1/media/${up.body.media_id}?channel_id=${s.chat}`, { key: s.key })
      expect(deleted.status, deleted.text).toBe(200)
      expect(deleted.body).toEqual({ deleted: true })
      expect(state.media.has(up.body.media_id)).toBe(false)
      const gone = yield* request("GET", `/platform/v1/media/${up.body.media_id}/url?channel_id=${s.chat}`, { key: s.key })
      expect(gone.status, gone.text).toBe(404)
    }))

  it.effect("a media id the upstream does not know (deleted, never uploaded) is 404 not_found on url, delete and an earlier link", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const up = yield* upload(s.key, [["channel_id", String(s.chat)], ["file", blob(PNG, "image/png"), "dog.png"]])
      expect(up.status, up.text).toBe(200)
      const link = yield* request("GET", `/platform/v1/media/${up.body.media_id}/url?channel_id=${s.chat}`, { key: s.key })
      expect(link.status, link.text).toBe(200)
      const deleted = yield* request("DELETE", `/platform/v1/media/${up.body.media_id}?channel_id=${s.chat}`, { key: s.key })
      expect(deleted.status, deleted.text).toBe(200)

      const replies = [
        yield* request("GET", `/platform/v1/media/${up.body.media_id}/url?channel_id=${s.chat}`, { key: s.key }),
        yield* request("DELETE", `/platform/v1/media/${up.body.media_id}?channel_id=${s.chat}`, { key: s.key }),
        yield* request("GET", `/platform/v1/media/9999999999999999/url?channel_id=${s.chat}`, { key: s.key }),
        yield* request("DELETE", `/platform/v1/media/9999999999999999?channel_id=${s.chat}`, { key: s.key }),
        yield* Effect.promise(() => fetch(link.body.url).then(async (r) => ({ status: r.status, text: await r.text() })))
      ]
      for (const reply of replies) {
        expect(reply.status, reply.text).toBe(404)
        expect(JSON.parse(reply.text).detail).toEqual({ code: "not_found", message: expect.stringMatching(/^media \d+ not found/) })
      }
    }))

  it.effect("a download link shows raster images inline but serves any other type (an inbound HTML document) as a sandboxed attachment", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      // What a WhatsApp user can send as a document: the upstream passes any MIME type along.
      const html = Buffer.from("<html><script>fetch('/platform/dashboard/api-keys',{method:'POST'})</script></html>")
      const q = yield* sql
      const [line] = yield* q<{ phone_number_id: string }>`select phone_number_id from platform_channels where id = ${s.chat}`
      state.media.set("5550000000000001", {
        id: "5550000000000001",
        owner_id: line!.phone_number_id,
        bytes: new Uint8Array(html),
        mime_type: "text/html",
        filename: "invoice.html",
        sha256: "0".repeat(64)
      })
      const up = yield* upload(s.key, [["channel_id", String(s.chat)], ["file", blob(PNG, "image/png"), "cat.png"]])
      const fetchLink = (mediaId: string) =>
        Effect.gen(function*() {
          const link = yield* request("GET", `/platform/v1/media/${mediaId}/url?channel_id=${s.chat}`, { key: s.key })
          expect(link.status, link.text).toBe(200)
          return yield* Effect.promise(async () => {
            const res = await fetch(link.body.url)
            await res.arrayBuffer()
            return {
              status: res.status,
              type: res.headers.get("content-type"),
              disposition: res.headers.get("content-disposition"),
              csp: res.headers.get("content-security-policy")
            }
          })
        })
      expect(yield* fetchLink("5550000000000001")).toEqual({
        status: 200,
        type: "text/html",
        disposition: "attachment; filename=\"5550000000000001\"",
        csp: "default-src 'none'; sandbox"
      })
      expect(yield* fetchLink(up.body.media_id)).toEqual({
        status: 200,
        type: "image/png",
        disposition: "inline",
        csp: "default-src 'none'; sandbox"
      })
    }))

  const REFUSED: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string | Blob, string?]>, ReadonlyArray<string>, RegExp]> = [
    ["a file whose bytes are not its MIME type", [["channel_id", "CHAT"], ["file", blob(JPEG, "image/png"), "x.png"]], ["body", "file"], /not image\/png/],
    ["a MIME type the upstream does not take", [["channel_id", "CHAT"], ["file", blob(PNG, "application/zip"), "x.zip"]], ["body", "file"], /unsupported media type/],
    ["a sticker over 500 KB", [["channel_id", "CHAT"], ["file", blob(webp(600 * 1024), "image/webp"), "s.webp"]], ["body", "file"], /at most 500 KB/],
    ["a file before channel_id", [["file", blob(PNG, "image/png"), "x.png"], ["channel_id", "CHAT"]], ["body", "channel_id"], /before file/],
    ["a channel_id in exponent notation", [["channel_id", "1e0"], ["file", blob(PNG, "image/png"), "x.png"]], ["body", "channel_id"], /must be an integer/],
    ["a channel_id with a sign", [["channel_id", "+1"], ["file", blob(PNG, "image/png"), "x.png"]], ["body", "channel_id"], /must be an integer/],
    ["no file", [["channel_id", "CHAT"]], ["body", "file"], /required/],
    ["an unknown field", [["channel_id", "CHAT"], ["colour", "red"]], ["body", "colour"], /unknown field/]
  ]
  for (const [name, parts, loc, msg] of REFUSED) {
    it.effect(`a multipart upload with ${name} is 422 at ${loc.join(".")} and stores nothing upstream`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const state = yield* SandboxState
        const before = state.media.size
        const reply = yield* upload(s.key, parts.map(([k, v, f]): readonly [string, string | Blob, string?] => f === undefined ? [k, v === "CHAT" ? String(s.chat) : v] : [k, v, f]))
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(loc)
        expect(reply.body.detail[0].msg).toMatch(msg)
        expect(state.media.size).toBe(before)
      }))
  }

  // These were a 500 (no boundary) or no answer at all (a body ended before its closing boundary).
  const MALFORMED_FORMS: ReadonlyArray<readonly [string, string, string, ReadonlyArray<string>, RegExp]> = [
    ["a Content-Type without a boundary", "multipart/form-data", "--x\r\n\r\n--x--\r\n", ["header", "content-type"], /needs its boundary/],
    ["an empty boundary", "multipart/form-data; boundary=", "", ["header", "content-type"], /needs its boundary/],
    ["a parameter the parser refuses beside the boundary", "multipart/form-data; boundary=b; junk", "--b--\r\n", ["header", "content-type"], /needs its boundary/],
    ["an empty body", "multipart/form-data; boundary=b", "", ["body", "file"], /ended before its closing boundary/],
    ["a body cut inside a part's headers", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-da", ["body", "file"], /ended before its closing boundary/],
    ["a body without its closing boundary", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"channel_id\"\r\n\r\n1\r\n--b\r\n", ["body", "file"], /ended before its closing boundary/]
  ]
  for (const route of ["/platform/v1/media", "/platform/v1/templates/header-media"]) {
    for (const [name, contentType, body, loc, msg] of MALFORMED_FORMS) {
      it.effect(`POST ${route} with ${name} is 422 at ${loc.join(".")}, answered at once`, () =>
        Effect.gen(function*() {
          const s = yield* ctx
          const base = yield* baseUrl
          const reply = yield* Effect.promise(async () => {
            const res = await fetch(base + route, {
              method: "POST",
              headers: { "x-api-key": s.key, "content-type": contentType },
              body,
              signal: AbortSignal.timeout(5_000)
            })
            return { status: res.status, body: await res.json() as any }
          })
          expect(reply.status).toBe(422)
          expect(reply.body.detail).toEqual([expect.objectContaining({ loc, msg: expect.stringMatching(msg) })])
        }))
    }
  }

  // Instagram's Attachment Upload API: image png/jpeg/gif 8 MB; video mp4/ogg/avi/mov/webm, audio aac/m4a/wav/mp4, file pdf 25 MB.
  const GIF = new Uint8Array([...Buffer.from("GIF89a"), ...Array.from({ length: 100 }, (_, i) => i % 256)])
  const DOCX = new Uint8Array([...Buffer.from("PK\u0003\u0004"), ...Array.from({ length: 100 }, (_, i) => i % 256)])
  const bigPng = (size: number) => {
    const b = new Uint8Array(size)
    b.set(PNG.subarray(0, 8))
    return b
  }
  const BY_KIND: ReadonlyArray<readonly [string, "chat" | "social", Blob, string, number, RegExp | null]> = [
    ["a GIF is taken on social", "social", blob(GIF, "image/gif"), "a.gif", 200, null],
    ["a GIF is refused on chat", "chat", blob(GIF, "image/gif"), "a.gif", 422, /unsupported media type image\/gif/],
    ["a 6 MB PNG is taken on social (8 MB cap)", "social", blob(bigPng(6 * 1024 * 1024), "image/png"), "big.png", 200, null],
    ["a 6 MB PNG is refused on chat (5 MB cap)", "chat", blob(bigPng(6 * 1024 * 1024), "image/png"), "big.png", 422, /at most 5 MB/],
    ["a Word document is refused on social (PDF only)", "social", blob(DOCX, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"), "a.docx", 422, /unsupported media type/],
    ["a Word document is taken on chat", "chat", blob(DOCX, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"), "a.docx", 200, null]
  ]
  for (const [name, kind, file, filename, status, msg] of BY_KIND) {
    it.effect(`${name}: ${status}`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const reply = yield* upload(s.key, [["channel_id", String(s[kind])], ["file", file, filename]])
        expect(reply.status, reply.text).toBe(status)
        if (msg !== null) {
          expect(reply.body.detail[0].loc).toEqual(["body", "file"])
          expect(reply.body.detail[0].msg).toMatch(msg)
        }
      }))
  }

  it.effect("media of a social channel has no upstream URL lookup: GET url is 400 chat_only", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* request("GET", `/platform/v1/media/123/url?channel_id=${s.social}`, { key: s.key })
      expect(reply.status).toBe(400)
      expect(reply.body.detail.code).toBe("chat_only")
    }))

  it.effect("media of another account's number is 404 through one's own channel, and stays (the upstream scopes media to its number)", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const other = yield* setup("media-theirs")
      const theirs = yield* upload(other.key, [["channel_id", String(other.chat)], ["file", blob(PNG, "image/png"), "private.png"]])
      expect(theirs.status, theirs.text).toBe(200)
      const url = yield* request("GET", `/platform/v1/media/${theirs.body.media_id}/url?channel_id=${s.chat}`, { key: s.key })
      const del = yield* request("DELETE", `/platform/v1/media/${theirs.body.media_id}?channel_id=${s.chat}`, { key: s.key })
      expect([url.status, del.status], url.text + del.text).toEqual([404, 404])
      expect(state.media.has(theirs.body.media_id)).toBe(true)
      const own = yield* request("GET", `/platform/v1/media/${theirs.body.media_id}/url?channel_id=${other.chat}`, { key: other.key })
      expect(own.status, own.text).toBe(200)
    }))

  it.effect("another account's channel is 404 on upload, url and delete", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("media-other")
      const up = yield* upload(s.key, [["channel_id", String(other.chat)], ["file", blob(PNG, "image/png"), "x.png"]])
      const url = yield* request("GET", `/platform/v1/media/1/url?channel_id=${other.chat}`, { key: s.key })
      const del = yield* request("DELETE", `/platform/v1/media/1?channel_id=${other.chat}`, { key: s.key })
      expect([up.status, url.status, del.status]).toEqual([404, 404, 404])
    }))

  it.effect("a URL source is downloaded (capped) and uploaded; a redirect or an oversize file is 422 at url", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* receiverUrl()
      const ok = yield* request("POST", "/platform/v1/media", { key: s.key, body: { channel_id: s.chat, url: `${base}/cat.png`, mime_type: "image/png" } })
      expect(ok.status, ok.text).toBe(200)
      const big = yield* request("POST", "/platform/v1/media", { key: s.key, body: { channel_id: s.chat, url: `${base}/big.webp`, mime_type: "image/webp" } })
      expect(big.status).toBe(422)
      expect(big.body.detail[0]).toMatchObject({ loc: ["body", "url"], msg: expect.stringMatching(/500 KB cap/) })
      const redirect = yield* request("POST", "/platform/v1/media", { key: s.key, body: { channel_id: s.chat, url: `${base}/redirect`, mime_type: "image/png" } })
      expect(redirect.status).toBe(422)
      expect(redirect.body.detail[0].loc).toEqual(["body", "url"])
    }))

  it.effect("a URL source's file name is its last path segment, decoded when it can be and kept as written when not", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* receiverUrl()
      const q = yield* sql
      for (const [path, filename] of [["/ga%C3%A7o%20azul.png", "gaço azul.png"], ["/a%E0%A4%A.png", "a%E0%A4%A.png"]] as const) {
        const up = yield* request("POST", "/platform/v1/media", { key: s.key, body: { channel_id: s.chat, url: `${base}${path}`, mime_type: "image/png" } })
        expect(up.status, up.text).toBe(200)
        const [row] = yield* q<{ filename: string }>`select filename from media where media_id = ${up.body.media_id}`
        expect(row!.filename).toBe(filename)
      }
    }))
})

/** URL forms the SSRF guard refuses; the route must answer 422 before any connection is made. */
const SSRF_URLS = (port: number) => [
  `http://127.0.0.1:${port}/a.png`,
  `https://127.0.0.1:${port}/a.png`,
  `https://localhost./a.png`,
  `https://2130706433:${port}/a.png`,
  `https://0x7f000001:${port}/a.png`,
  `https://0177.0.0.1:${port}/a.png`,
  `https://[::ffff:127.0.0.1]:${port}/a.png`,
  `https://[64:ff9b::7f00:1]:${port}/a.png`,
  `https://169.254.169.254/latest/meta-data`,
  `https://[fd00:ec2::254]/latest`,
  `https://10.0.0.5/a.png`,
  `https://100.64.0.1/a.png`,
  `https://[fd12:3456::1]/a.png`,
  `https://[fe80::1]/a.png`,
  `https://224.0.0.1/a.png`,
  `https://user:pass@127.0.0.1:${port}/a.png`,
  `ftp://example.com/a.png`,
  `not a url`
]

layer(MessagingTestServer({ UNSAFE_ALLOW_LOCAL_TARGETS: "false" }), { timeout: 120_000, excludeTestServices: true })(
  "media from URL: the SSRF guard runs before any fetch",
  (it) => {
    it.effect("every refused URL form is 422 at body.url and the target never sees a request", () =>
      Effect.gen(function*() {
        const s = yield* setup("ssrf")
        const base = yield* receiverUrl()
        const port = Number(new URL(base).port)
        const before = hits
        for (const url of SSRF_URLS(port)) {
          const reply = yield* request("POST", "/platform/v1/media", { key: s.key, body: { channel_id: s.chat, url, mime_type: "image/png" } })
          expect(reply.status, `${url}: ${reply.text}`).toBe(422)
          expect(reply.body.detail[0].loc, url).toEqual(["body", "url"])
        }
        expect(hits - before).toBe(0)
      }))
  }
)
