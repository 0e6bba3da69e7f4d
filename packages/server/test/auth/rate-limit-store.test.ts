import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type Server, type Socket } from "node:net"
import { AuthTestServer, capturedLogs, createKey, request, signup } from "./support.js"

/*
 * The limiter store failing must neither take the API down nor slow it down: a
 * request is admitted at once, and the outage is logged once, not per request.
 */

const listen = (server: Server) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)))

/** A port nothing listens on: bound, then closed. */
const closedPort = async () => {
  const server = createServer()
  const port = await listen(server)
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Answers the client's INFO ready check, then never answers a command (a Redis that hangs). */
const hangingRedis = async () => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("data", (chunk) => {
      if (/info/i.test(chunk.toString("latin1"))) {
        const info = "# Server\r\nredis_version:7.0.0\r\nloading:0\r\n"
        socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`)
      }
    })
  })
  const port = await listen(server)
  return {
    port,
    close: () => {
      sockets.forEach((s) => s.destroy())
      server.close()
    }
  }
}

const unreachable = `redis://127.0.0.1:${await closedPort()}`
const hanging = await hangingRedis()
afterAll(() => hanging.close())

const outageWarnings = () => capturedLogs.filter((line) => line.includes("rate limiter store unavailable")).length

const timedRequests = (key: string, n: number) =>
  Effect.gen(function*() {
    const replies = []
    const started = Date.now()
    for (let i = 0; i < n; i++) replies.push(yield* request("GET", "/platform/v1/channels", { key }))
    return { statuses: replies.map((r) => r.status), ms: Date.now() - started }
  })

/** 8 keyed requests over a limit of 2 are all admitted (the store is skipped, not waited for), within 2 s, with one warning. */
const admittedAtOnce = Effect.gen(function*() {
  const dev = yield* signup()
  const { key } = yield* createKey(dev, { rate_limit_per_minute: 2 })
  const before = outageWarnings()
  const { ms, statuses } = yield* timedRequests(key, 8)
  expect(statuses).toEqual(Array(8).fill(200))
  expect(ms).toBeLessThan(2_000)
  expect(outageWarnings() - before).toBe(1)
})

describe("rate limiter store down", () => {
  layer(AuthTestServer({ REDIS_URL: unreachable }), { timeout: 60_000 })("Redis unreachable", (it) => {
    // Each request waited out ioredis's reconnect backoff (about 2 s) before it was admitted.
    it.effect("keyed requests are admitted at once, and the outage is logged once", () => admittedAtOnce)
  })

  layer(AuthTestServer({ REDIS_URL: `redis://127.0.0.1:${hanging.port}` }), { timeout: 60_000 })("Redis hanging", (it) => {
    it.effect("a command that gets no answer admits the request within a quarter second, not never", () => admittedAtOnce)
  })
})
