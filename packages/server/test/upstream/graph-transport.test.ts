import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { graphExchange } from "../../src/upstream/graph-transport.js"
import { eventually } from "../support/receiver.js"

/**
 * The Graph call's own transport (node:http with keep-alive) against a real HTTP server
 * on loopback: msw stands in for Meta everywhere else, and would hide the connections.
 */
interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

let server: http.Server
let base: string
const seen: Array<Seen> = []
let connections = 0
const closedMidRequest: Array<string> = []

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (c: Buffer) => (body += c.toString("utf8")))
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
      if (req.url?.startsWith("/slow")) {
        // Never answers: the caller's deadline must end it, and the server sees the socket go.
        res.on("close", () => closedMidRequest.push(req.url ?? ""))
        return
      }
      if (req.url?.startsWith("/cut")) {
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" })
        res.write(`{"messages":[`)
        setTimeout(() => res.socket?.destroy(), 20)
        return
      }
      res.writeHead(req.url?.startsWith("/error") ? 400 : 200, {
        "content-type": "application/json",
        "x-fb-trace-id": "Abc123",
        "set-cookie": ["a=1", "b=2"]
      })
      res.end(JSON.stringify({ ok: true, echo: body }))
    })
  })
  server.on("connection", () => connections++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe("graphExchange", () => {
  it.live("sends the method, headers and body, and answers the status, lower-case headers and text", () =>
    Effect.gen(function*() {
      const answer = yield* graphExchange({
        method: "POST",
        url: new URL(`${base}/v23.0/1065/messages?fields=id`),
        headers: { accept: "application/json", authorization: "Bearer EAAGtoken", "content-type": "application/json" },
        body: JSON.stringify({ to: "15550001111", text: { body: "héllo" } })
      })
      expect(answer.status).toBe(200)
      expect(answer.headers["x-fb-trace-id"]).toBe("Abc123")
      expect(answer.headers["set-cookie"]).toBe("a=1, b=2")
      expect(JSON.parse(answer.text)).toEqual({ ok: true, echo: `{"to":"15550001111","text":{"body":"héllo"}}` })
      const request = seen.at(-1)!
      expect(request.method).toBe("POST")
      expect(request.url).toBe("/v23.0/1065/messages?fields=id")
      expect(request.headers.authorization).toBe("Bearer EAAGtoken")
      // The length of the UTF-8 bytes, not of the string.
      expect(request.headers["content-length"]).toBe(String(Buffer.byteLength(request.body)))
    }))

  it.live("an error status is an answer, not a failure: the caller classifies it", () =>
    Effect.gen(function*() {
      const answer = yield* graphExchange({ method: "GET", url: new URL(`${base}/error`), headers: {} })
      expect(answer.status).toBe(400)
      expect(JSON.parse(answer.text)).toEqual({ ok: true, echo: "" })
    }))

  it.live("calls one after another reuse one kept-alive connection", () =>
    Effect.gen(function*() {
      yield* graphExchange({ method: "GET", url: new URL(`${base}/warm`), headers: {} })
      const before = connections
      for (let i = 0; i < 20; i++) {
        const answer = yield* graphExchange({ method: "GET", url: new URL(`${base}/again/${i}`), headers: {} })
        expect(answer.status).toBe(200)
      }
      expect(connections - before).toBe(0)
    }))

  it.live("a deadline ends the call and closes its connection: the server sees the request go", () =>
    Effect.gen(function*() {
      const result = yield* graphExchange({ method: "POST", url: new URL(`${base}/slow/1`), headers: {}, body: "{}" }).pipe(
        Effect.timeout(Duration.millis(150)),
        Effect.either
      )
      expect(Either.isLeft(result) && result.left._tag).toBe("TimeoutException")
      yield* eventually(Effect.sync(() => closedMidRequest.includes("/slow/1") ? true : undefined))
    }))

  it.live("an answer cut off before its end fails as a transport error, never as a short body", () =>
    Effect.gen(function*() {
      const result = yield* Effect.either(graphExchange({ method: "GET", url: new URL(`${base}/cut`), headers: {} }))
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left._tag).toBe("GraphTransportError")
    }))

  it.live("a refused connection fails as a transport error", () =>
    Effect.gen(function*() {
      const closed = http.createServer()
      yield* Effect.promise(() => new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve)))
      const port = (closed.address() as AddressInfo).port
      yield* Effect.promise(() => new Promise((resolve) => closed.close(resolve)))
      const result = yield* Effect.either(graphExchange({ method: "GET", url: new URL(`http://127.0.0.1:${port}/`), headers: {} }))
      expect(Either.isLeft(result) && result.left._tag).toBe("GraphTransportError")
      if (Either.isLeft(result)) expect(result.left.cause.message).toMatch(/ECONNREFUSED/)
    }))
})
