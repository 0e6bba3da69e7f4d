import express, { type ErrorRequestHandler } from "express"
import { once } from "node:events"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { createExpressMiddleware, type WebhookEvent } from "../../src/index.js"
import { signedHeaders } from "../../src/testing.js"
import { backends, envelope, SECRET, useBackend } from "../helpers.js"
import { adapterCases, standardCase, startPartialPost } from "./cases.js"

const received: WebhookEvent[] = []
const errors: unknown[] = []
const handled: Array<Promise<void>> = []
let failNext = false
let server: Server
let base: string

beforeAll(async () => {
  const app = express()
  const onEvent = (event: WebhookEvent) => {
    if (failNext) throw new Error("handler failed")
    received.push(event)
  }
  const webhook = createExpressMiddleware({ secret: SECRET, onEvent })
  app.post("/raw", express.raw({ type: "application/json" }), webhook)
  app.post("/no-parser", webhook)
  app.post("/text", express.text({ type: "application/json" }), webhook)
  app.post("/small", createExpressMiddleware({ secret: SECRET, onEvent, maxBodyBytes: 50 }))
  app.post("/small-raw", express.raw({ type: "application/json" }), createExpressMiddleware({ secret: SECRET, onEvent, maxBodyBytes: 50 }))
  app.post("/standard", express.raw({ type: "application/json" }), createExpressMiddleware({ secret: SECRET, onEvent, scheme: "standard" }))
  app.all("/get", webhook)
  app.post("/express4", (req, res, next) => void handled.push(webhook(req, res, next)))
  // body-parser 1.x (Express 4) sets req.body = {} before it looks at the content type, and leaves it so when the type does not match.
  const bodyParser1Default: express.RequestHandler = (req, _res, next) => {
    req.body = req.body || {}
    next()
  }
  app.post("/express4-raw", bodyParser1Default, express.raw({ type: "application/json" }), webhook)
  app.use(express.json())
  app.post("/json", webhook)
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    errors.push(error)
    res.status(500).json({ error: (error as Error).message })
  }
  app.use(onError)
  await new Promise<void>((resolve) => {
    server = app.listen(0, "127.0.0.1", () => resolve())
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

afterEach(() => {
  received.length = 0
  errors.length = 0
  handled.length = 0
  failNext = false
})

const post = (path: string, body: string, headers: Record<string, string>) => fetch(base + path, { method: "POST", body, headers })

describe.each(backends)("createExpressMiddleware() in an express app on 127.0.0.1 with the %s backend", async (_name, backend) => {
  useBackend(backend)
  const cases = await adapterCases()

  describe.each([["/raw", "after express.raw()"], ["/no-parser", "without a body parser"], ["/text", "after express.text()"]])(
    "on %s (%s)",
    (path) => {
      it.each(cases)("$name", async ({ body, headers, status, events, reason }) => {
        const response = await post(path, body, headers)
        expect(response.status).toBe(status)
        expect(received.map((event) => event.event)).toEqual(events)
        if (reason !== undefined) expect(await response.json()).toMatchObject({ reason })
      })
    }
  )

  it("passes a clear TypeError to next() when express.json() already parsed the body", async () => {
    const body = JSON.stringify(envelope("message.sent"))
    const response = await post("/json", body, await signedHeaders(SECRET, body))
    expect(response.status).toBe(500)
    expect(errors[0]).toBeInstanceOf(TypeError)
    expect((errors[0] as Error).message).toMatch(/^@platform\/webhook-verify: req\.body was already parsed.*express\.raw/)
    expect(received).toEqual([])
  })

  it("reads the raw body itself when an Express 4 body parser skipped the request and left req.body {} (another content type)", async () => {
    const body = JSON.stringify(envelope("message.sent"))
    const response = await post("/express4-raw", body, { ...(await signedHeaders(SECRET, body)), "content-type": "text/plain" })
    expect(response.status).toBe(204)
    expect(received.map((event) => event.event)).toEqual(["message.sent"])
    expect(errors).toEqual([])
    const empty = await fetch(`${base}/express4-raw`, { method: "POST" })
    expect(empty.status).toBe(401)
    expect(await empty.json()).toMatchObject({ reason: "missing_signature" })
    expect(errors).toEqual([])
  })

  it("passes an onEvent error to next() so the error handler answers 500", async () => {
    failNext = true
    const body = JSON.stringify(envelope("message.sent"))
    const response = await post("/raw", body, await signedHeaders(SECRET, body))
    expect(response.status).toBe(500)
    expect(errors).toEqual([new Error("handler failed")])
  })

  it.each([["/small"], ["/small-raw"]])("answers 413 on %s to a body over maxBodyBytes", async (path) => {
    const body = JSON.stringify(envelope("message.sent"))
    expect((await post(path, body, await signedHeaders(SECRET, body))).status).toBe(413)
  })

  it.each([
    ["a fresh Standard Webhooks signature", 0, 204],
    ["a Standard Webhooks signature ten minutes in the future", -600, 401]
  ])("with scheme standard answers %s with %i", async (_case, age, status) => {
    const { body, headers } = await standardCase(age)
    expect((await post("/standard", body, headers)).status).toBe(status)
  })

  it("answers 405 to a GET", async () => {
    expect((await fetch(`${base}/get`)).status).toBe(405)
  })
})

describe("createExpressMiddleware() and a client that aborts mid-body", () => {
  it("drops the request without rejecting (Express 4 leaves a rejected middleware promise unhandled) and answers the next delivery", async () => {
    const arrived = once(server, "request")
    const socket = await startPartialPost(`${base}/express4`)
    await arrived
    socket.destroy()
    await expect(handled[0]).resolves.toBeUndefined()
    expect(errors).toEqual([])
    const body = JSON.stringify(envelope("message.sent"))
    expect((await post("/express4", body, await signedHeaders(SECRET, body))).status).toBe(204)
    expect(received.map((event) => event.event)).toEqual(["message.sent"])
  })
})
