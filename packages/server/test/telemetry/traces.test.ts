import { describe, expect, it, layer } from "@effect/vitest"
import { SpanKind } from "@opentelemetry/api"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, HashMap, Layer, Logger, LogLevel } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { vi } from "vitest"
import { AppConfig } from "../../src/config.js"
import { LoggingLive } from "../../src/logging.js"
import { currentTraceParent, manualSpans, tracingLayer, TracingLive, withTraceIds } from "../../src/telemetry/tracing.js"
import { inboundText, wamid } from "../fixtures/meta/inbound.js"
import { postInbound } from "../inbound/support.js"
import { eventually, startReceiver } from "../support/receiver.js"
import { request, rows, subscribe, TelemetryTestServer, tenant } from "./support.js"

const exporter = new InMemorySpanExporter()

interface Line {
  readonly message: string
  readonly annotations: Record<string, unknown>
}
const lines: Array<Line> = []

/** Every log line of the server, kept with its annotations, through the trace-id logger of LoggingLive. */
const CaptureWithTraceIds = Logger.replace(
  Logger.defaultLogger,
  withTraceIds(Logger.make(({ annotations, message }) => {
    lines.push({
      message: Array.isArray(message) ? message.join(" ") : String(message),
      annotations: Object.fromEntries(HashMap.toEntries(annotations))
    })
  }))
)

/** The test server with its spans kept in memory (as the OTLP exporter would get them). */
const TracedServer = TelemetryTestServer({ LOG_LEVEL: "info" }, LogLevel.Info).pipe(
  Layer.provide(tracingLayer(new SimpleSpanProcessor(exporter), "platform-test")),
  Layer.provide(CaptureWithTraceIds)
)

const spans = () => exporter.getFinishedSpans()
const named = (name: string) => spans().filter((s) => s.name === name)
const ids = (span: ReadableSpan) => span.spanContext()

/** Whether `span` descends from `ancestor`: the same trace, `ancestor` up its parent chain. */
const descendsFrom = (span: ReadableSpan, ancestor: ReadableSpan) => {
  const byId = new Map(spans().map((s) => [ids(s).spanId, s]))
  for (let at: ReadableSpan | undefined = span; at !== undefined; at = byId.get(at.parentSpanContext?.spanId ?? "")) {
    if (ids(at).traceId !== ids(ancestor).traceId) return false
    if (at.parentSpanContext?.spanId === ids(ancestor).spanId) return true
  }
  return false
}

const linksTo = (span: ReadableSpan, target: ReadableSpan) =>
  span.links.some((l) => l.context.traceId === ids(target).traceId && l.context.spanId === ids(target).spanId)

layer(TracedServer, { timeout: 120_000, excludeTestServices: true })("traces", (it) => {
  it.effect("an API send is a server span named by its route template, the Graph call's spans below it, its log lines carry its trace id", () =>
    Effect.gen(function*() {
      const t = yield* tenant("traces-send")
      const sent = yield* request("POST", "/platform/v1/messages", {
        key: t.key,
        headers: { "x-request-id": "trace-send-1" },
        body: { channel_id: t.channelId, to: "15550100003", type: "text", text: "traced" }
      })
      expect(sent.status).toBe(200)

      const server = yield* eventually(Effect.sync(() =>
        named("POST /platform/v1/messages").find((s) => s.attributes["http.response.status_code"] === 200)
      ))
      expect(server.kind).toBe(SpanKind.SERVER)
      expect(server.attributes["http.route"]).toBe("/platform/v1/messages")
      const upstream = yield* eventually(Effect.sync(() => named("Upstream.messages.send").find((s) => descendsFrom(s, server))))
      const client = spans().find((s) => s.kind === SpanKind.CLIENT && descendsFrom(s, upstream))
      expect(client?.name).toBe("http.client POST")
      // The client sent a traceparent: the sandbox's answer to the Graph call is a server span of the same trace.
      const graph = spans().find((s) => s.kind === SpanKind.SERVER && s.name === "POST /__sandbox/graph/{path}" && descendsFrom(s, client!))
      expect(graph).toBeDefined()

      const access = lines.find((l) => l.message === "request" && l.annotations["request_id"] === "trace-send-1")
      expect(access?.annotations["trace_id"]).toBe(ids(server).traceId)
      expect(access?.annotations["span_id"]).toBe(ids(server).spanId)

      // Its message.sent event is stored with the request's trace (its span or one below it), as an inbound POST's events are.
      const [event] = yield* rows((sql) => sql<{ trace_parent: string | null }>`
        select trace_parent from events where developer_account_id = ${t.dev.accountId} and event_type = 'message.sent'`)
      const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(event?.trace_parent ?? "") ?? []
      expect(traceId).toBe(ids(server).traceId)
      const stored = spans().find((s) => ids(s).spanId === spanId)
      expect(stored === server || descendsFrom(stored!, server)).toBe(true)
    }))

  it.scoped("an inbound webhook's span is stored with its events and linked from their delivery attempts and its raw forward", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const origin = receiver.url.replace(/\/hook$/, "")
      const t = yield* tenant("traces-inbound")
      yield* subscribe(t, receiver.url, ["message.received"])
      const raw = yield* request("PATCH", `/platform/dashboard/channels/${t.channelId}/webhook`, {
        cookie: t.dev.cookie,
        body: { webhook_url: `${origin}/raw` }
      })
      expect(raw.status).toBe(200)

      const mid = wamid()
      expect((yield* postInbound(inboundText(t.line, "15550100004", "traced hi", { id: mid }))).status).toBe(200)
      const [event] = yield* eventually(Effect.map(
        rows((sql) => sql<{ trace_parent: string | null; event_id: string }>`
          select trace_parent, event_id from events
          where developer_account_id = ${t.dev.accountId} and event_type = 'message.received'`),
        (found) => found.length > 0 ? found : undefined
      ))
      const inbound = named("POST /webhook/incoming").find((s) =>
        event!.trace_parent === `00-${ids(s).traceId}-${ids(s).spanId}-01`
      )
      expect(inbound?.kind).toBe(SpanKind.SERVER)
      expect(inbound?.attributes["inbound.outcome"]).toBe("stored")
      expect(inbound?.attributes["http.response.status_code"]).toBe(200)
      const [delivery] = yield* rows((sql) => sql<{ trace_parent: string | null }>`
        select trace_parent from webhook_deliveries where event_id = ${event!.event_id}`)
      expect(delivery?.trace_parent).toBe(event!.trace_parent)

      const attempt = yield* eventually(Effect.sync(() => named("Deliveries.attempt").find((s) => linksTo(s, inbound!))))
      expect(attempt.kind).toBe(SpanKind.CLIENT)
      expect(attempt.attributes["event.id"]).toBe(event!.event_id)
      expect(attempt.attributes["event.type"]).toBe("message.received")
      expect(attempt.attributes["http.response.status_code"]).toBe(200)
      const forward = yield* eventually(Effect.sync(() => named("RawForward.attempt").find((s) => linksTo(s, inbound!))))
      expect(forward.attributes["http.response.status_code"]).toBe(200)

      const access = lines.find((l) =>
        l.message === "request" && l.annotations["path"] === "/webhook/incoming" && l.annotations["trace_id"] === ids(inbound!).traceId
      )
      expect(access?.annotations["status"]).toBe(200)
    }))

  it.effect("the workers' own loops start no trace: every root span is a request's or an attempt's", () =>
    Effect.gen(function*() {
      yield* Effect.sleep("600 millis") // fan-out sweeps every 250 ms, the buffer every second
      const roots = spans().filter((s) => s.parentSpanContext === undefined)
      expect(roots.length).toBeGreaterThan(0)
      expect(roots.filter((s) => s.kind !== SpanKind.SERVER && s.kind !== SpanKind.CLIENT).map((s) => s.name)).toEqual([])
      expect(named("FanOut.drain")).toEqual([])
    }))
})

describe("tracing configuration", () => {
  it.effect("with OTEL_EXPORTER_OTLP_ENDPOINT set, spans go over OTLP/HTTP to <endpoint>/v1/traces, flushed at shutdown", () =>
    Effect.gen(function*() {
      const received: Array<{ readonly path: string; readonly body: string }> = []
      const collector = createServer((req, res) => {
        let body = ""
        req.on("data", (c: Buffer) => (body += c.toString("utf8")))
        req.on("end", () => {
          received.push({ path: req.url ?? "", body })
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      yield* Effect.promise(() => new Promise<void>((r) => collector.listen(0, "127.0.0.1", () => r())))
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
      try {
        yield* Effect.logInfo("probe").pipe(
          Effect.withSpan("otlp-export-child"),
          Effect.withSpan("otlp-export-probe", { kind: "server", attributes: { probe: true } }),
          Effect.provide(TracingLive),
          Effect.provide(AppConfig.layerWith({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "platform-otlp-test" }))
        )
        expect(received.map((r) => r.path)).toEqual(["/v1/traces"])
        expect(received[0]!.body).toContain("otlp-export-probe")
        expect(received[0]!.body).toContain("otlp-export-child")
        expect(received[0]!.body).toContain("platform-otlp-test")
      } finally {
        collector.close()
      }
    }))

  it.effect("with it unset, tracing is off: no span is made by hand, none is current, nothing is stored with an event", () =>
    Effect.gen(function*() {
      expect(yield* manualSpans).toBeUndefined()
      expect(yield* currentTraceParent.pipe(Effect.withSpan("not recorded"))).toBeNull()
    }).pipe(Effect.provide(TracingLive), Effect.provide(AppConfig.layerWith({}))))

  it.effect("LoggingLive's JSON lines carry trace_id and span_id inside a span when tracing is on, and not when it is off", () =>
    Effect.gen(function*() {
      const printed: Array<string> = []
      const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)))
      try {
        // Each in a fiber of its own, as main.ts runs the app: the loggers a layer installs stay with its fiber.
        const logged = (overrides: Record<string, string>) =>
          Effect.promise(() =>
            Effect.runPromise(Effect.logInfo("inside").pipe(
              Effect.withSpan("logged"),
              Effect.provide(LoggingLive),
              Effect.provide(AppConfig.layerWith({ LOG_FORMAT: "json", ...overrides }))
            ))
          )
        yield* logged({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })
        yield* logged({})
      } finally {
        log.mockRestore()
      }
      // Only this test's lines: whatever else runs in the process may print meanwhile.
      const [on, off, ...more] = printed.map((line) => JSON.parse(line)).filter((l) => l.message === "inside")
      expect(more).toEqual([])
      expect(on.annotations.trace_id).toMatch(/^[0-9a-f]{32}$/)
      expect(on.annotations.span_id).toMatch(/^[0-9a-f]{16}$/)
      expect(off.annotations).toEqual({})
    }))
})
