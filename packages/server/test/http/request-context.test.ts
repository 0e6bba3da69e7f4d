import { HttpApiBuilder } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { HttpAppLive } from "../../src/server.js"
import { TestDatabase } from "../support/database.js"
import { captureLogs } from "../support/log-capture.js"
import { baseUrl, TestConfig, TestListener } from "../support/server.js"

const { layer: Capture, lines } = captureLogs()

const ServerLoggingAt = (level: LogLevel.LogLevel) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpAppLive),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(TestConfig()),
    Layer.provideMerge(TestListener),
    Layer.provide(Layer.merge(Capture, Logger.minimumLogLevel(level)))
  )

const get = (path: string, requestId: string) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const res = await fetch(base + path, { headers: { "x-request-id": requestId } })
      await res.arrayBuffer()
      return res
    }))

const accessLines = (requestId: string) =>
  lines.filter((l) => l.message === "request" && l.annotations.request_id === requestId)

describe("request context", () => {
  layer(ServerLoggingAt(LogLevel.Info), { timeout: 60_000 })("access log at Info", (it) => {
    it.effect("each response writes one access line: id, method, path without the query, status, duration", () =>
      Effect.gen(function*() {
        const ok = yield* get("/healthz?probe=1", "trace-access-ok")
        const refused = yield* get("/platform/v1/channels?type=chat", "trace-access-401")
        // POST /webhook/incoming is a front route (plain node:http): same duties.
        const base = yield* baseUrl
        const inbound = yield* Effect.promise(async () => {
          const res = await fetch(`${base}/webhook/incoming?x=1`, {
            method: "POST",
            headers: { "x-request-id": "trace-access-inbound", "content-type": "application/json" },
            body: "{}"
          })
          return { res, body: await res.json() }
        })
        expect([ok.status, refused.status, inbound.res.status]).toEqual([200, 401, 401])
        expect(refused.headers.get("x-request-id")).toBe("trace-access-401")
        expect(inbound.res.headers.get("x-request-id")).toBe("trace-access-inbound")
        expect(inbound.res.headers.get("content-type")).toBe("application/json")
        expect(inbound.body).toMatchObject({ detail: { code: "unauthorized" } })
        for (const [id, method, path, status] of [
          ["trace-access-ok", "GET", "/healthz", 200],
          ["trace-access-401", "GET", "/platform/v1/channels", 401],
          ["trace-access-inbound", "POST", "/webhook/incoming", 401]
        ] as const) {
          const [line, ...more] = accessLines(id)
          expect(more).toEqual([])
          expect(line).toMatchObject({ level: "INFO", annotations: { request_id: id, method, path, status } })
          expect(line!.annotations.duration_ms).toBeGreaterThanOrEqual(0)
        }
      }))
  })

  layer(ServerLoggingAt(LogLevel.Warning), { timeout: 60_000 })("access log below Info", (it) => {
    it.effect("no access line is written, and the response still carries its request id", () =>
      Effect.gen(function*() {
        const res = yield* get("/healthz", "trace-access-quiet")
        expect(res.status).toBe(200)
        expect(res.headers.get("x-request-id")).toBe("trace-access-quiet")
        expect(accessLines("trace-access-quiet")).toEqual([])
        const base = yield* baseUrl
        const post = (headers: Record<string, string>) =>
          Effect.promise(() =>
            fetch(`${base}/webhook/incoming`, { method: "POST", headers, body: "{}" }).then(async (r) => (await r.arrayBuffer(), r))
          )
        const named = yield* post({ "x-request-id": "trace-access-quiet-inbound" })
        expect(named.status).toBe(401)
        expect(named.headers.get("x-request-id")).toBe("trace-access-quiet-inbound")
        expect(accessLines("trace-access-quiet-inbound")).toEqual([])
        const unnamed = yield* post({ "x-request-id": "not a sane id!" })
        expect(unnamed.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/)
      }))
  })
})
