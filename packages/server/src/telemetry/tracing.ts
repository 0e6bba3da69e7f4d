import { NodeSdk } from "@effect/opentelemetry"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { SpanKind } from "@opentelemetry/api"
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SpanProcessor
} from "@opentelemetry/sdk-trace-base"
import { Context, Effect, Exit, FiberRef, FiberRefs, HashMap, Layer, Logger, Option, Tracer } from "effect"
import { AppConfig } from "../config.js"
import { routeTemplate } from "./route-templates.js"

/**
 * Traces (OpenTelemetry). With `OTEL_EXPORTER_OTLP_ENDPOINT` set, every Effect span
 * (HTTP server spans named by route template, `Effect.fn` service spans, the Graph
 * client's spans) goes to the OTLP/HTTP exporter in batches. Unset, tracing is off:
 * Effect makes no-op spans, the HTTP server and client skip their span work
 * (URL parsing, header redaction, `traceparent` headers), and the paths that make
 * spans by hand (the inbound front route, the dispatcher's POSTs) make none.
 */
export const tracingLayer = (processor: SpanProcessor, serviceName: string) =>
  Layer.mergeAll(
    NodeSdk.layer(() => ({
      resource: { serviceName },
      spanProcessor: processor,
      tracerConfig: { sampler: new ParentBasedSampler({ root: requestsAndAttempts }) }
    })),
    Layer.succeed(HttpMiddleware.SpanNameGenerator, (request) => `${request.method} ${routeTemplate(request.method, request.url)}`)
  )

/**
 * Which traces start: a request's (server spans) and a call's or webhook POST's (client
 * spans, such as a delivery attempt); everything below them follows its parent. The
 * workers' own loops (fan-out's sweep every 250 ms, the buffer, the sweeps) would
 * otherwise each start an idle trace several times a second.
 */
const requestsAndAttempts: Sampler = {
  shouldSample: (_context, _traceId, _name, kind) => ({
    decision: kind === SpanKind.SERVER || kind === SpanKind.CLIENT ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD
  }),
  toString: () => "RequestsAndAttempts"
}

/** Tracing off: no-op spans, and no span work in the HTTP server and client. */
export const TracingOff = Layer.mergeAll(
  Layer.setTracerEnabled(false),
  Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true),
  Layer.locallyScoped(HttpClient.currentTracerDisabledWhen, () => true),
  Layer.locallyScoped(HttpClient.currentTracerPropagation, false)
)

/** OTLP/HTTP (JSON) to `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` when set, else `TracingOff`. */
export const TracingLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Option.match(config.otlpEndpoint, {
    onNone: () => TracingOff,
    onSome: (endpoint) =>
      tracingLayer(
        // Headers (OTEL_EXPORTER_OTLP_HEADERS) and time-outs are read from the environment by the exporter.
        new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` })),
        config.otelServiceName
      )
  })))

/** The span a fiber runs in, when it is a real one (not a no-op span of tracing off). */
const currentSpanOf = (refs: FiberRefs.FiberRefs): Tracer.AnySpan | undefined => {
  const span = Context.getOption(FiberRefs.getOrDefault(refs, FiberRef.currentContext), Tracer.ParentSpan)
  if (Option.isNone(span)) return undefined
  return span.value._tag === "Span" && Context.get(span.value.context, Tracer.DisablePropagation) ? undefined : span.value
}

/** Adds `trace_id` and `span_id` to each line logged inside a span (tracing on). */
export const withTraceIds = <M, O>(logger: Logger.Logger<M, O>): Logger.Logger<M, O> =>
  Logger.mapInputOptions(logger, (options: Logger.Logger.Options<M>) => {
    const span = currentSpanOf(options.context)
    return span === undefined
      ? options
      : { ...options, annotations: HashMap.set(HashMap.set(options.annotations, "trace_id", span.traceId), "span_id", span.spanId) }
  })

/** The `traceparent` of the span the caller runs in; null with tracing off or outside any span. */
export const currentTraceParent: Effect.Effect<string | null> = Effect.withFiberRuntime((fiber) => {
  const span = currentSpanOf(fiber.getFiberRefs())
  return Effect.succeed(span === undefined ? null : traceParentOf(span))
})

/** W3C `traceparent` of a span: `00-<trace id>-<span id>-<flags>`. */
export const traceParentOf = (span: Tracer.AnySpan): string => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The span a `traceparent` names (stored with an event, or a request's header); undefined when malformed. */
export const parseTraceParent = (value: string | null | undefined): Tracer.ExternalSpan | undefined => {
  const m = value === null || value === undefined ? null : TRACE_PARENT.exec(value.trim())
  if (m === null || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined
  return Tracer.externalSpan({ traceId: m[1]!, spanId: m[2]!, sampled: (parseInt(m[3]!, 16) & 1) === 1 })
}

/** A span made by hand, on paths that run no fiber of their own. */
export interface ManualSpan {
  readonly span: Tracer.Span
  /** This span as a `traceparent`, to store with what it causes. */
  readonly traceParent: string
  readonly attribute: (key: string, value: unknown) => void
  /** Ends the span; `error`: why it failed. */
  readonly end: (error?: string) => void
}

export interface ManualSpans {
  readonly start: (name: string, options: {
    readonly kind: Tracer.SpanKind
    readonly parent?: Tracer.AnySpan | undefined
    /** `traceparent`s of the spans this one follows from (the inbound POST of an event). */
    readonly links?: ReadonlyArray<string | null | undefined> | undefined
    readonly attributes?: Readonly<Record<string, unknown>> | undefined
  }) => ManualSpan
}

const nowNanos = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000_000))

/**
 * Span making for plain code, over the tracer of the fiber that calls this (the
 * process's: OpenTelemetry's when tracing is on); undefined when tracing is off, so
 * those paths skip tracing with one check.
 */
export const manualSpans: Effect.Effect<ManualSpans | undefined> = Effect.gen(function*() {
  if (!(yield* FiberRef.get(FiberRef.currentTracerEnabled))) return undefined
  const tracer = yield* Effect.tracer
  return {
    start: (name, options) => {
      const links: Array<Tracer.SpanLink> = []
      for (const link of options.links ?? []) {
        const span = parseTraceParent(link)
        if (span !== undefined) links.push({ _tag: "SpanLink", span, attributes: {} })
      }
      const span = tracer.span(name, Option.fromNullable(options.parent), Context.empty(), links, nowNanos(), options.kind)
      for (const key in options.attributes) span.attribute(key, options.attributes[key])
      return {
        span,
        traceParent: traceParentOf(span),
        attribute: (key, value) => span.attribute(key, value),
        end: (error) => span.end(nowNanos(), error === undefined ? Exit.void : Exit.fail(error))
      }
    }
  }
})
