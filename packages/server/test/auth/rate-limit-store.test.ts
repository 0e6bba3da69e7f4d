import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
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

/** Answers the client's INFO ready check, then never answers a command (a Redis that hangs); counts the limiter's scripts it was sent. */
const hangingRedis = async () => {
  const sockets = new Set<Socket>()
  let scripts = 0
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("data", (chunk) => {
      scripts += chunk.toString("latin1").match(/^evalsha\r$|^eval\r$/gim)?.length ?? 0
      if (/info/i.test(chunk.toString("latin1"))) {
        const info = "# Server\r\nredis_version:7.0.0\r\nloading:0\r\n"
        socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`)
      }
    })
  })
  const port = await listen(server)
  return {
    port,
    scripts: () => scripts,
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

const outageCauses = () =>
  capturedLogs.filter((line) => line.includes("rate limiter store unavailable")).map((line) => JSON.parse(line).message.join(" "))

const keyedRequests = (key: string, n: number) =>
  Effect.gen(function*() {
    const replies = []
    for (let i = 0; i < n; i++) replies.push(yield* request("GET", "/platform/v1/channels", { key }))
    return replies.map((r) => r.status)
  })

/**
 * 8 keyed requests over a limit of 2 are all admitted with one warning, and none waits for the store: the first
 * fails fast (`fastFailure` is how: nothing is queued while disconnected, or the command times out) and the
 * others, within the backoff, do not ask it at all (`storeCalls` counts the requests that reached the store).
 */
const admittedAtOnce = (fastFailure: RegExp, storeCalls?: () => number) =>
  Effect.gen(function*() {
    const dev = yield* signup()
    const { key } = yield* createKey(dev, { rate_limit_per_minute: 2 })
    const before = outageWarnings()
    const called = storeCalls?.() ?? 0
    expect(yield* keyedRequests(key, 8)).toEqual(Array(8).fill(200))
    expect(outageWarnings() - before).toBe(1)
    expect(outageCauses().at(-1)).toMatch(fastFailure)
    if (storeCalls !== undefined) {
      expect(storeCalls() - called).toBe(1)
      // After the backoff the store is asked again (and the outage is not logged twice).
      yield* TestClock.adjust("1 second")
      expect(yield* keyedRequests(key, 1)).toEqual([200])
      expect(storeCalls() - called).toBe(2)
      expect(outageWarnings() - before).toBe(1)
    }
  })

describe("rate limiter store down", () => {
  layer(AuthTestServer({ REDIS_URL: unreachable }), { timeout: 60_000 })("Redis unreachable", (it) => {
    // Each request waited out ioredis's reconnect backoff (about 2 s) before it was admitted.
    it.effect("keyed requests are admitted at once, and the outage is logged once", () =>
      admittedAtOnce(/enableOfflineQueue/))
  })

  layer(AuthTestServer({ REDIS_URL: `redis://127.0.0.1:${hanging.port}` }), { timeout: 60_000 })("Redis hanging", (it) => {
    it.effect("a command that gets no answer admits the request at its time-out, not never, and the next ones skip the store", () =>
      admittedAtOnce(/timed out/i, hanging.scripts))
  })
})
