import { HttpApiBuilder } from "@effect/platform"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, LogLevel } from "effect"
import { HttpAppLive } from "../../src/http/server.js"
import { TestDatabase } from "../support/database.js"
import { baseUrl, TestConfig, TestListener } from "../support/server.js"

interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

const lines: Array<Line> = []

const Capture = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, logLevel, message }) => {
    lines.push({
      level: logLevel.label,
      message: Array.isArray(message) ? message.join(" ") : String(message),
      annotations: Object.fromEntries(HashMap.toEntries(annotations))
    })
  })
)

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
        expect([ok.status, refused.status]).toEqual([200, 401])
        expect(refused.headers.get("x-request-id")).toBe("trace-access-401")
        for (const [id, path, status] of [
          ["trace-access-ok", "/healthz", 200],
          ["trace-access-401", "/platform/v1/channels", 401]
        ] as const) {
          const [line, ...more] = accessLines(id)
          expect(more).toEqual([])
          expect(line).toMatchObject({ level: "INFO", annotations: { request_id: id, method: "GET", path, status } })
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
      }))
  })
})
