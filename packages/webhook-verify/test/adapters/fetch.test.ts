import { afterEach, describe, expect, it, vi } from "vitest"
import { createFetchHandler, type DeliveryInfo, type FetchHandlerOptions, type WebhookEvent } from "../../src/index.js"
import { signedHeaders } from "../../src/testing.js"
import { backends, envelope, SECRET, useBackend } from "../helpers.js"
import { adapterCases, standardCase } from "./cases.js"

const received: Array<[WebhookEvent, DeliveryInfo]> = []
afterEach(() => {
  received.length = 0
})

const handlerWith = (options: Partial<FetchHandlerOptions> = {}) =>
  createFetchHandler({ secret: SECRET, onEvent: (event, delivery) => void received.push([event, delivery]), ...options })

const request = (body: string, headers: Record<string, string>) =>
  new Request("https://receiver.example/api/webhooks", { method: "POST", body, headers })

describe.each(backends)("createFetchHandler() with Fetch Request objects and the %s backend", async (_name, backend) => {
  useBackend(backend)
  const cases = await adapterCases()

  it.each(cases)("$name", async ({ body, headers, status, events, reason }) => {
    const response = await handlerWith()(request(body, headers))
    expect(response.status).toBe(status)
    expect(received.map(([event]) => event.event)).toEqual(events)
    if (reason !== undefined) {
      expect(response.headers.get("content-type")).toBe("application/json")
      expect(await response.json()).toMatchObject({ reason })
    }
  })

  it("passes the delivery id to onEvent", async () => {
    const body = JSON.stringify(envelope("template.status_changed"))
    await handlerWith()(request(body, await signedHeaders(SECRET, body, { deliveryId: "12" })))
    expect(received[0]![1]).toEqual({ deliveryId: "12", batch: false })
  })

  it.each([
    ["a fresh Standard Webhooks signature", 0, 204],
    ["a Standard Webhooks signature older than a custom 60 s tolerance", 120, 401]
  ])("with scheme standard answers %s with %i", async (_case, age, status) => {
    const { body, headers } = await standardCase(age)
    expect((await handlerWith({ scheme: "standard", toleranceSeconds: 60 })(request(body, headers))).status).toBe(status)
  })

  it("acknowledges an unknown future event type and hands it to onUnknownEvent only", async () => {
    const unknown: string[] = []
    const body = JSON.stringify({ events: [envelope("message.sent"), envelope("payment.captured")] })
    const handler = handlerWith({ onUnknownEvent: (event) => void unknown.push(event.event) })
    expect((await handler(request(body, await signedHeaders(SECRET, body)))).status).toBe(204)
    expect(received.map(([event]) => event.event)).toEqual(["message.sent"])
    expect(unknown).toEqual(["payment.captured"])
  })

  it("acknowledges an unknown future event type without onUnknownEvent", async () => {
    const body = JSON.stringify(envelope("payment.captured"))
    expect((await handlerWith()(request(body, await signedHeaders(SECRET, body)))).status).toBe(204)
    expect(received).toEqual([])
  })

  it("answers 405 with Allow: POST to a GET", async () => {
    const response = await handlerWith()(new Request("https://receiver.example/api/webhooks"))
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe("POST")
  })

  it("answers 413 when the declared content-length exceeds maxBodyBytes", async () => {
    const body = JSON.stringify(envelope("message.sent"))
    const headers = { ...(await signedHeaders(SECRET, body)), "content-length": String(body.length) }
    expect((await handlerWith({ maxBodyBytes: 10 })(request(body, headers))).status).toBe(413)
  })

  it("answers 413 when a body without content-length exceeds maxBodyBytes", async () => {
    const body = JSON.stringify(envelope("message.sent"))
    const stream = new Blob([body]).stream()
    const streamed = new Request("https://receiver.example/", { method: "POST", body: stream, headers: await signedHeaders(SECRET, body), duplex: "half" } as RequestInit)
    expect((await handlerWith({ maxBodyBytes: 10 })(streamed)).status).toBe(413)
  })

  it("stops reading a body without content-length once it passes maxBodyBytes, and answers 413", async () => {
    let pulled = 0
    let cancelled = false
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        pulled++
        if (pulled > 1000) controller.close()
        else controller.enqueue(new Uint8Array(1024).fill(0x20))
      },
      cancel: () => void (cancelled = true)
    }, { highWaterMark: 0 })
    const init = { method: "POST", body: endless, headers: await signedHeaders(SECRET, "{}"), duplex: "half" } as RequestInit
    const response = await handlerWith({ maxBodyBytes: 4096 })(new Request("https://receiver.example/", init))
    expect(response.status).toBe(413)
    expect(pulled).toBeLessThanOrEqual(6)
    expect(cancelled).toBe(true)
    expect(received).toEqual([])
  })

  it("answers 400 incomplete_body, without rejecting, when the body stream breaks off", async () => {
    const body = JSON.stringify(envelope("message.sent"))
    const broken = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode(body.slice(0, 10)))
        controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }))
      }
    })
    const init = { method: "POST", body: broken, headers: await signedHeaders(SECRET, body), duplex: "half" } as RequestInit
    const response = await handlerWith()(new Request("https://receiver.example/", init))
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: "invalid_body", reason: "incomplete_body" })
    expect(received).toEqual([])
  })

  it.each([
    ["read by request.json()", (r: Request) => r.json()],
    ["read by request.text()", (r: Request) => r.text()],
    ["locked by another reader", (r: Request) => r.body!.getReader()]
  ])("answers 500 without rejecting and tells onError why, when the body was already %s", async (_case, consume) => {
    const onError = vi.fn()
    const body = JSON.stringify(envelope("message.sent"))
    const used = request(body, await signedHeaders(SECRET, body))
    await consume(used)
    const response = await handlerWith({ onError })(used)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: "handler_failed" })
    expect(onError).toHaveBeenCalledTimes(1)
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(TypeError)
    expect(String(onError.mock.calls[0]![0])).toMatch(/@platform\/webhook-verify: the request body was already read .*pass the untouched Request/)
    expect(received).toEqual([])
  })

  it("answers 500 and calls onError when onEvent rejects", async () => {
    const onError = vi.fn()
    const body = JSON.stringify(envelope("message.sent"))
    const handler = handlerWith({ onEvent: () => Promise.reject(new Error("queue full")), onError })
    const response = await handler(request(body, await signedHeaders(SECRET, body)))
    expect(response.status).toBe(500)
    expect(onError).toHaveBeenCalledWith(new Error("queue full"))
  })

  it("logs onEvent errors with console.error by default", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {})
    const body = JSON.stringify(envelope("message.sent"))
    const handler = createFetchHandler({ secret: SECRET, onEvent: () => { throw new Error("nope") } })
    expect((await handler(request(body, await signedHeaders(SECRET, body)))).status).toBe(500)
    expect(spy).toHaveBeenCalledWith(new Error("nope"))
    spy.mockRestore()
  })
})
