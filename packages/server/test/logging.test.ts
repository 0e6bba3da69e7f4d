import { HttpApiBuilder } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, LogLevel } from "effect"
import { terminalLogger } from "../src/logging.js"
import { HttpAppLive } from "../src/server.js"
import { ConfigFromServer, send, sharedSetup } from "./messages/support.js"
import { TestDatabase } from "./support/database.js"
import { captureLogs } from "./support/log-capture.js"
import { TestListener } from "./support/server.js"

/** What `terminalLogger` prints for the given logging effect. */
const printed = (effect: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const original = globalThis.console.log
    globalThis.console.log = (...args: Array<unknown>) => void out.push(args.join(" "))
    try {
      yield* effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, terminalLogger(false))))
    } finally {
      globalThis.console.log = original
    }
    return out.join("\n")
  })

describe("the terminal log", () => {
  it.effect("an access line is one line: time, method, path, status, duration, request id", () =>
    Effect.gen(function*() {
      const text = yield* printed(Effect.logInfo("request").pipe(Effect.annotateLogs({
        request_id: "req_1", method: "POST", path: "/platform/v1/messages", status: 200, duration_ms: 4.5
      })))
      expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} POST \/platform\/v1\/messages 200 4\.5 ms req_1$/)
    }))

  it.effect("another line is one line with its level and annotations; a cause follows it", () =>
    Effect.gen(function*() {
      const text = yield* printed(Effect.logWarning("readiness check failed", Cause.fail("db down")).pipe(
        Effect.annotateLogs({ attempt: 3, reason: "timed out" })
      ))
      const [first, ...rest] = text.split("\n")
      expect(first).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN readiness check failed( attempt=3| reason="timed out"){2}$/)
      expect(first).toContain("attempt=3")
      expect(rest.join("\n")).toContain("db down")
    }))
})

/** The sandbox server with its log lines captured at `level`. */
const SandboxServerLoggingAt = (level: LogLevel.LogLevel) => {
  const capture = captureLogs()
  const server = HttpApiBuilder.serve().pipe(
    Layer.provideMerge(HttpAppLive),
    Layer.provideMerge(ConfigFromServer({ LOG_LEVEL: level === LogLevel.Debug ? "debug" : "info" })),
    Layer.provideMerge(TestListener),
    Layer.provideMerge(TestDatabase),
    Layer.provide(Layer.merge(capture.layer, Logger.minimumLogLevel(level)))
  )
  return { server, lines: capture.lines }
}

/** Sends one text through the sandbox and waits for its sent, delivered and read callbacks; the paths of the access lines logged meanwhile. */
const sendAndSettle = (lines: ReturnType<typeof captureLogs>["lines"], ctx: ReturnType<typeof sharedSetup>) =>
  Effect.gen(function*() {
    const s = yield* ctx
    const from = lines.length
    const reply = yield* send(s.key, { channel_id: s.chat, to: "15551234567", type: "text", text: "log me" })
    expect(reply.status, reply.text).toBe(200)
    yield* Effect.sleep("1500 millis") // the callbacks are 5 ms apart here
    return lines.slice(from).filter((l) => l.message === "request").map((l) => `${l.level} ${String(l.annotations.path)}`)
  })

const info = SandboxServerLoggingAt(LogLevel.Info)
layer(info.server, { timeout: 120_000, excludeTestServices: true })("a sandbox send logged at Info", (it) => {
  const ctx = sharedSetup("log-info")
  it.effect("is one access line: the sandbox's Graph calls and its callbacks are not logged", () =>
    Effect.gen(function*() {
      expect(yield* sendAndSettle(info.lines, ctx)).toEqual(["INFO /platform/v1/messages"])
    }))
})

const debug = SandboxServerLoggingAt(LogLevel.Debug)
layer(debug.server, { timeout: 120_000, excludeTestServices: true })("a sandbox send logged at Debug", (it) => {
  const ctx = sharedSetup("log-debug")
  it.effect("also shows the sandbox's Graph call and its three callbacks, at Debug", () =>
    Effect.gen(function*() {
      const paths = yield* sendAndSettle(debug.lines, ctx)
      expect(paths).toContain("INFO /platform/v1/messages")
      expect(paths.filter((p) => /^DEBUG \/__sandbox\/graph\/.*\/messages$/.test(p))).toHaveLength(1)
      expect(paths.filter((p) => p === "DEBUG /webhook/incoming")).toHaveLength(3)
      expect(paths.filter((p) => p.startsWith("INFO") && p !== "INFO /platform/v1/messages")).toEqual([])
    }))
})
