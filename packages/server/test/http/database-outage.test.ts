import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Logger, LogLevel } from "effect"
import { WorkersLive } from "../../src/app.js"
import { API_BOUNDS } from "../../src/db/statement-bounds.js"
import { HttpAppLive } from "../../src/server.js"
import { createKey, type Reply, request, signup } from "../auth/support.js"
import { inboundText, signedBody } from "../fixtures/meta/inbound.js"
import { DatabaseOutage, TestDatabaseBehindProxy } from "../support/outage-proxy.js"
import { captureLogs } from "../support/log-capture.js"
import { eventually } from "../support/receiver.js"
import { baseUrl, TestConfig, TestListener } from "../support/server.js"
import { recordUncaught } from "../support/uncaught.js"

const { layer: Capture, lines } = captureLogs()

/** The whole process as `ROLE=all` runs it (HTTP and every worker), its database behind a proxy the test cuts. */
const OutageServer = Layer.mergeAll(HttpApiBuilder.serve().pipe(Layer.provide(HttpAppLive)), WorkersLive).pipe(
  Layer.provideMerge(TestDatabaseBehindProxy),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(TestListener),
  Layer.provide(Layer.merge(Capture, Logger.minimumLogLevel(LogLevel.Info)))
)

const uncaught = recordUncaught()

/** A signed Meta POST of one inbound text, as Meta sends (and resends) it. */
const webhook = (body: { readonly body: string; readonly signature: string }) =>
  request("POST", "/webhook/incoming", { rawBody: body.body, headers: { "x-hub-signature-256": body.signature } })

/** GET /readyz and how long it took to answer. */
const readyz = Effect.flatMap(baseUrl, (base) =>
  Effect.promise(async () => {
    const started = Date.now()
    const res = await fetch(`${base}/readyz`)
    await res.arrayBuffer()
    return { status: res.status, ms: Date.now() - started }
  }))

/** How long after now /readyz first answers 200, polled every 50 ms. */
const readyAgainAfter = Effect.gen(function*() {
  const started = Date.now()
  yield* eventually(Effect.map(readyz, (r) => (r.status === 200 ? true : undefined)).pipe(
    Effect.tap(() => Effect.sleep(Duration.millis(50)))
  ))
  return Date.now() - started
})

/** A 503 of a lost database in the DESIGN error shape, with Retry-After and the request id of the response. */
const expectDatabaseUnavailable = (reply: Reply) => {
  expect(reply.status).toBe(503)
  expect(reply.headers.get("retry-after")).toBe("2")
  expect(reply.body).toEqual({
    detail: {
      code: "database_unavailable",
      message: "The database is unreachable; retry after 2 seconds",
      request_id: reply.headers.get("x-request-id")
    }
  })
}

/** The log lines written after the first `from`, up to `to`. */
const linesBetween = (from: number, to = lines.length) => lines.slice(from, to)
/** The proxy of the test's database, open again whatever the test ends with. */
const databaseProxy = Effect.acquireRelease(
  Effect.map(DatabaseOutage, ({ proxy }) => proxy),
  (proxy) => Effect.sync(() => proxy.restore())
)

const outageStarts = (from: number, to?: number) =>
  linesBetween(from, to).filter((l) => l.message.startsWith("database unreachable; "))

layer(OutageServer, { timeout: 120_000, excludeTestServices: true })("the database lost and regained", (it) => {
  it.scoped(
    "a cut with requests in flight fails those requests (503 with Retry-After, a non-2xx to Meta), never the process; readyz is 503 and 200 within a second of the restore; each worker logs the outage once and a summary",
    () =>
      Effect.gen(function*() {
        const proxy = yield* databaseProxy
        const sql = yield* SqlClient.SqlClient
        const dev = yield* signup("outage")
        const { key } = yield* createKey(dev)
        const connected = yield* request("POST", "/platform/dashboard/channels/connect/chat", {
          cookie: dev.cookie,
          body: { code: "sandbox-code", phone_number_id: "155500000990", waba_id: "WABA155500000990" }
        })
        expect(connected.status).toBe(201)
        const line = { waba_id: "WABA155500000990", phone_number_id: "155500000990" }
        const retried = signedBody(inboundText(line, "5511900001111", "sent while the database was away"))
        expect((yield* request("GET", "/platform/v1/channels", { key })).status).toBe(200)
        expect((yield* readyz).status).toBe(200)

        // Statements sent and waiting for their answer, then every connection reset.
        const before = lines.length
        proxy.stall()
        const inFlight = yield* Effect.fork(Effect.all([
          request("GET", "/platform/v1/conversations", { key }),
          request("GET", "/platform/v1/messages", { key }),
          webhook(retried)
        ], { concurrency: "unbounded" }))
        yield* Effect.sleep(Duration.millis(300))
        proxy.cut()
        const [conversations, messages, inbound] = yield* Fiber.join(inFlight)
        expectDatabaseUnavailable(conversations)
        expectDatabaseUnavailable(messages)
        expect(inbound.status).toBe(503)
        expect(inbound.headers.get("retry-after")).toBe("2")

        // While the database refuses connections: the same answers, at once.
        expectDatabaseUnavailable(yield* request("GET", "/platform/v1/contacts", { key }))
        expect((yield* webhook(retried)).status).toBe(503)
        const down = yield* readyz
        expect(down.status).toBe(503)
        expect(down.ms).toBeLessThan(2_500)
        // Long enough for the workers' attempts to fail a few times each.
        yield* Effect.sleep(Duration.seconds(3))
        const restoredAt = lines.length
        proxy.restore()
        expect(yield* readyAgainAfter).toBeLessThan(1_000)

        // The requests go on; Meta's retry of the POST is stored, once.
        expect((yield* request("GET", "/platform/v1/channels", { key })).status).toBe(200)
        expect((yield* webhook(retried)).status).toBe(200)
        const stored = yield* sql<{ n: number }>`select count(*)::int as n from messages
          where text = 'sent while the database was away'`
        expect(stored[0]?.n).toBe(1)

        // Each worker that met the outage said so once, with the driver's words, and nothing at error level.
        const starts = outageStarts(before, restoredAt)
        const workers = starts.map((l) => String(l.annotations.worker))
        expect(workers).toContain("fan-out")
        expect(workers).toContain("delivery dispatcher")
        expect(new Set(workers).size).toBe(workers.length)
        for (const start of starts) {
          expect(start.level).toBe("WARN")
          expect(start.message).toBe(`database unreachable; ${start.annotations.worker} backing off`)
          expect(String(start.annotations.error)).not.toBe("")
        }
        expect(linesBetween(before, restoredAt).filter((l) => l.level === "ERROR" || l.level === "FATAL")).toEqual([])
        // Readiness says when it changes, not at every probe.
        expect(linesBetween(before).filter((l) => l.message.startsWith("readiness check failed"))).toHaveLength(1)
        expect(linesBetween(restoredAt).filter((l) => l.message === "readiness check passes again")).toHaveLength(1)
        // The requests' outage is one line too, not a warning per failed request, and its summary counts them.
        expect(linesBetween(before).filter((l) => l.message.startsWith("request failed"))).toEqual([])
        expect(linesBetween(before, restoredAt).filter((l) => l.message.includes("requests answer 503"))
          .map((l) => [l.level, l.message, String(l.annotations.error) !== ""])).toEqual([
            ["WARN", "database unreachable: requests answer 503 until it is back", true]
          ])
        expect(linesBetween(restoredAt).filter((l) => l.message.startsWith("database answering requests again")).map((l) => l.message))
          .toEqual([expect.stringMatching(/^database answering requests again after \d+(\.\d)? s; 5 requests answered 503$/)])
        // ... and once it could reach the database again, how long it was gone and how many attempts failed.
        const summaries = yield* eventually(Effect.sync(() => {
          const found = linesBetween(restoredAt).filter((l) => l.message.startsWith("database reachable again after "))
          return found.length >= workers.length ? found : undefined
        }), 15_000)
        expect(summaries.map((l) => String(l.annotations.worker)).sort()).toEqual([...workers].sort())
        for (const summary of summaries) {
          expect(summary.message).toMatch(/^database reachable again after \d+(\.\d)? s; [1-9]\d* attempts failed$/)
        }
        expect(uncaught).toEqual([])
      })
  )

  it.scoped("a black-holed database (connections accepted, never answered): readyz answers 503 within its timeout, logged once, and 200 within a second of the restore", () =>
    Effect.gen(function*() {
      const proxy = yield* databaseProxy
      expect((yield* readyz).status).toBe(200)
      const before = lines.length
      proxy.stall()
      for (let probe = 0; probe < 2; probe++) {
        const down = yield* readyz
        expect(down.status).toBe(503)
        expect(down.ms).toBeLessThan(3_000)
      }
      expect(linesBetween(before).filter((l) => l.message.startsWith("readiness check failed"))).toHaveLength(1)
      proxy.restore()
      expect(yield* readyAgainAfter).toBeLessThan(1_000)
      expect(uncaught).toEqual([])
    }))

  it.scoped("a network partition (connections open, no byte passes): requests answer 503 within the statement bound, readyz 503, nothing uncaught; after it heals the next requests answer 200", () =>
    Effect.gen(function*() {
      const proxy = yield* databaseProxy
      const dev = yield* signup("partition")
      const { key } = yield* createKey(dev)
      expect((yield* request("GET", "/platform/v1/channels", { key })).status).toBe(200)
      // A statement unanswered for queryMs fails; a checkout waits at most connectMs for a connection first.
      const bound = API_BOUNDS.queryMs + API_BOUNDS.connectMs + 1_500
      const timed = <A, R>(effect: Effect.Effect<A, never, R>) =>
        Effect.map(Effect.timed(effect), ([took, reply]) => ({ reply, ms: Duration.toMillis(took) }))
      const before = lines.length
      proxy.stall()
      // Live connections frozen mid-conversation, then new ones accepted and never answered.
      for (const path of ["/platform/v1/conversations", "/platform/v1/contacts"]) {
        const answers = yield* Effect.all([
          timed(request("GET", path, { key })),
          timed(request("GET", "/platform/v1/messages", { key }))
        ], { concurrency: "unbounded" })
        for (const { ms, reply } of answers) {
          expectDatabaseUnavailable(reply)
          expect(ms).toBeLessThan(bound)
        }
      }
      expect((yield* readyz).status).toBe(503)
      expect(linesBetween(before).filter((l) => l.level === "ERROR" || l.level === "FATAL")).toEqual([])
      expect(linesBetween(before).filter((l) => l.message.includes("requests answer 503"))).toHaveLength(1)
      proxy.restore()
      expect(yield* readyAgainAfter).toBeLessThan(1_000)
      expect((yield* request("GET", "/platform/v1/channels", { key })).status).toBe(200)
      expect((yield* request("GET", "/platform/v1/messages", { key })).status).toBe(200)
      expect(linesBetween(before).filter((l) => l.message.startsWith("database answering requests again")).map((l) => l.message))
        .toEqual([expect.stringMatching(/ s; 4 requests answered 503$/)])
      expect(uncaught).toEqual([])
    }))

  it.scoped("an open event stream ends cleanly when the database goes away, and a new one is refused with 503 until it is back", () =>
    Effect.gen(function*() {
      const proxy = yield* databaseProxy
      const dev = yield* signup("outage-stream")
      const { key } = yield* createKey(dev)
      const base = yield* baseUrl
      const stream = yield* Effect.promise(() => fetch(`${base}/platform/v1/events/stream`, { headers: { "x-api-key": key } }))
      expect(stream.status).toBe(200)
      const reader = stream.body!.getReader()
      const first = yield* Effect.promise(() => reader.read())
      expect(new TextDecoder().decode(first.value)).toContain(": connected")
      const before = lines.length
      proxy.cut()
      // Read to the end: a stream cut off mid-body would reject here instead.
      const rest = yield* Effect.promise(async () => {
        const chunks: Array<string> = []
        for (;;) {
          const chunk = await reader.read()
          if (chunk.done) return chunks.join("")
          chunks.push(new TextDecoder().decode(chunk.value))
        }
      })
      expect(rest).not.toContain("event:")
      // Ended on purpose, with a warning, not as a failed response logged with its stack trace.
      expect(linesBetween(before).filter((l) => l.message === "event stream ended: the database is unreachable")).toHaveLength(1)
      expect(linesBetween(before).filter((l) => l.level === "ERROR" || l.level === "FATAL")).toEqual([])
      expectDatabaseUnavailable(yield* request("GET", "/platform/v1/events/stream", { key }))
      proxy.restore()
      yield* readyAgainAfter
      const again = yield* Effect.promise(async () => {
        const controller = new AbortController()
        const res = await fetch(`${base}/platform/v1/events/stream`, { headers: { "x-api-key": key }, signal: controller.signal })
        controller.abort()
        return res.status
      })
      expect(again).toBe(200)
      expect(uncaught).toEqual([])
    }))
})
