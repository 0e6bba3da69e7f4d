import { once } from "node:events"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { createNodeHandler, type DeliveryInfo, type NodeHandlerOptions, type WebhookEvent } from "../../src/index.js"
import { signedHeaders } from "../../src/testing.js"
import { backends, envelope, OTHER_SECRET, SECRET, useBackend } from "../helpers.js"
import { adapterCases, standardCase, startPartialPost } from "./cases.js"

const received: Array<[WebhookEvent, DeliveryInfo]> = []
const handled: Array<Promise<void>> = []
let options: Partial<NodeHandlerOptions> = {}
let server: Server
let url: string

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = createNodeHandler({
      secret: SECRET,
      onEvent: (event, delivery) => {
        received.push([event, delivery])
      },
      ...options
    })
    handled.push(handler(req, res))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

afterEach(() => {
  received.length = 0
  handled.length = 0
  options = {}
})

const post = (body: string, headers: Record<string, string>) => fetch(url, { method: "POST", body, headers })

describe.each(backends)("createNodeHandler() on a node:http server on 127.0.0.1 with the %s backend", async (_name, backend) => {
  useBackend(backend)
  const cases = await adapterCases()

  it.each(cases)("$name", async ({ body, headers, status, events, reason }) => {
    const response = await post(body, headers)
    expect(response.status).toBe(status)
    expect(received.map(([event]) => event.event)).toEqual(events)
    if (reason !== undefined) expect(await response.json()).toMatchObject({ reason })
  })

  it("passes the delivery id and batch flag to onEvent", async () => {
    const body = JSON.stringify({ events: [envelope("message.read")] })
    await post(body, await signedHeaders(SECRET, body, { deliveryId: 991 }))
    expect(received[0]![1]).toEqual({ deliveryId: "991", batch: true })
  })

  it("reports a null delivery id when the header is absent", async () => {
    const body = JSON.stringify(envelope("message.read"))
    const headers = await signedHeaders(SECRET, body)
    delete headers["x-platform-delivery-id"]
    await post(body, headers)
    expect(received[0]![1]).toEqual({ deliveryId: null, batch: false })
  })

  it("accepts the previous secret during rotation", async () => {
    options = { secret: [OTHER_SECRET, SECRET] }
    const body = JSON.stringify(envelope("message.read"))
    expect((await post(body, await signedHeaders(SECRET, body))).status).toBe(204)
  })

  it.each([
    ["a fresh Standard Webhooks signature", 0, 204],
    ["a Standard Webhooks signature ten minutes old", 600, 401]
  ])("with scheme standard answers %s with %i", async (_case, age, status) => {
    options = { scheme: "standard" }
    const { body, headers } = await standardCase(age)
    expect((await post(body, headers)).status).toBe(status)
  })

  it("answers 405 with Allow: POST to a GET", async () => {
    const response = await fetch(url)
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST")
  })

  it("answers 413 to a body over maxBodyBytes", async () => {
    options = { maxBodyBytes: 100 }
    const body = JSON.stringify(envelope("message.read"))
    expect((await post(body, await signedHeaders(SECRET, body))).status).toBe(413)
  })

  it("answers 500 and calls onError when onEvent throws, so the platform retries", async () => {
    const onError = vi.fn()
    options = {
      onEvent: () => {
        throw new Error("database down")
      },
      onError
    }
    const body = JSON.stringify(envelope("message.read"))
    expect((await post(body, await signedHeaders(SECRET, body))).status).toBe(500)
    expect(onError).toHaveBeenCalledWith(new Error("database down"))
  })

  it("awaits an async onEvent before answering", async () => {
    let done = false
    options = { onEvent: () => new Promise<void>((resolve) => setTimeout(() => ((done = true), resolve()), 20)) }
    const body = JSON.stringify(envelope("message.read"))
    await post(body, await signedHeaders(SECRET, body))
    expect(done).toBe(true)
  })
})

describe("createNodeHandler() and a client that aborts mid-body", () => {
  it("drops the request without rejecting (node:http would crash the process on a rejection) and answers the next delivery", async () => {
    const arrived = once(server, "request")
    const socket = await startPartialPost(url)
    await arrived
    socket.destroy()
    await expect(handled[0]).resolves.toBeUndefined()
    expect(received).toEqual([])
    const body = JSON.stringify(envelope("message.read"))
    expect((await post(body, await signedHeaders(SECRET, body))).status).toBe(204)
    expect(received.map(([event]) => event.event)).toEqual(["message.read"])
  })
})

describe("createNodeHandler() misuse", () => {
  it.each([
    ["no options", undefined, /needs an options object/],
    ["a missing secret", { onEvent: () => {} }, /non-empty string/],
    ["a missing onEvent", { secret: SECRET }, /onEvent/],
    ["an unknown scheme", { secret: SECRET, onEvent: () => {}, scheme: "hmac" }, /scheme/],
    ["an onUnknownEvent that is not a function", { secret: SECRET, onEvent: () => {}, onUnknownEvent: true }, /onUnknownEvent/],
    ["a maxBodyBytes given as a string (no limit would hold)", { secret: SECRET, onEvent: () => {}, maxBodyBytes: "10mb" }, /maxBodyBytes must be a positive number of bytes, got "10mb"/],
    ["a maxBodyBytes of NaN", { secret: SECRET, onEvent: () => {}, maxBodyBytes: Number("x") }, /maxBodyBytes must be a positive number of bytes, got NaN/],
    ["a negative toleranceSeconds (every standard delivery would answer 500)", { secret: SECRET, onEvent: () => {}, scheme: "standard", toleranceSeconds: -1 }, /toleranceSeconds must be a number of seconds >= 0, got -1/],
    ["a standard-scheme secret that is not whsec_<base64> (every delivery would answer 500)", { secret: "my-webhook-secret", onEvent: () => {}, scheme: "standard" }, /createNodeHandler\(\) needs a Standard Webhooks secret of the form whsec_<base64>/],
    ["a standard-scheme rotation list with one such secret", { secret: [SECRET, "whsec_"], onEvent: () => {}, scheme: "standard" }, /createNodeHandler\(\) needs a Standard Webhooks secret/],
    ["a toleranceSeconds given as a string", { secret: SECRET, onEvent: () => {}, scheme: "standard", toleranceSeconds: "300" }, /toleranceSeconds must be a number of seconds >= 0, got "300"/]
  ])("throws a package-prefixed TypeError at construction for %s", (_case, opts, message) => {
    expect(() => createNodeHandler(opts as NodeHandlerOptions)).toThrow(TypeError)
    expect(() => createNodeHandler(opts as NodeHandlerOptions)).toThrow(message)
  })

  const parsedRequest = (body: string, headers: Record<string, string>, parsed: unknown) =>
    // What Next.js API routes hand over with their default bodyParser: the stream read, req.body the parsed JSON.
    Object.assign((async function* () {})(), { method: "POST", headers, body: parsed })

  it("answers 500 and tells onError the body was already parsed, when a framework set req.body to an object", async () => {
    const onError = vi.fn()
    const onEvent = vi.fn()
    const handler = createNodeHandler({ secret: SECRET, onEvent, onError })
    const body = JSON.stringify(envelope("message.read"))
    const response = { statusCode: 0, setHeader: vi.fn(), end: vi.fn() }
    await handler(parsedRequest(body, await signedHeaders(SECRET, body), JSON.parse(body)), response)
    expect(response.statusCode).toBe(500)
    expect(response.end).toHaveBeenCalledWith(JSON.stringify({ error: "handler_failed" }))
    expect(onEvent).not.toHaveBeenCalled()
    expect(onError).toHaveBeenCalledTimes(1)
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(TypeError)
    expect(String(onError.mock.calls[0]![0])).toMatch(/@platform\/webhook-verify: req.body was already parsed .*bodyParser: false/)
  })

  it.each([
    ["a string", (body: string) => body],
    ["a Buffer", (body: string) => Buffer.from(body)]
  ])("verifies a body a framework left as %s in req.body", async (_case, given) => {
    const onEvent = vi.fn()
    const handler = createNodeHandler({ secret: SECRET, onEvent })
    const body = JSON.stringify(envelope("message.read"))
    const response = { statusCode: 0, setHeader: vi.fn(), end: vi.fn() }
    await handler(parsedRequest(body, await signedHeaders(SECRET, body), given(body)), response)
    expect(response.statusCode).toBe(204)
    expect(onEvent).toHaveBeenCalledTimes(1)
  })

  it("logs onEvent errors with console.error by default", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {})
    const handler = createNodeHandler({ secret: SECRET, onEvent: () => Promise.reject(new Error("boom")) })
    const body = JSON.stringify(envelope("message.read"))
    const headers = await signedHeaders(SECRET, body)
    const response = { statusCode: 0, setHeader: vi.fn(), end: vi.fn() }
    const request = Object.assign((async function* () { yield body })(), { method: "POST", headers })
    await handler(request, response)
    expect(response.statusCode).toBe(500)
    expect(spy).toHaveBeenCalledWith(new Error("boom"))
    spy.mockRestore()
  })

  it("reads an empty body as zero bytes", async () => {
    const handler = createNodeHandler({ secret: SECRET, onEvent: () => {} })
    const response = { statusCode: 0, setHeader: vi.fn(), end: vi.fn() }
    const request = Object.assign((async function* () {})(), { method: "POST", headers: await signedHeaders(SECRET, "") })
    await handler(request, response)
    expect(response.statusCode).toBe(400)
  })
})
