import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { AppConfig } from "./config.js"
import { withTraceIds } from "./telemetry/tracing.js"

const levels: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/**
 * Pretty logs on a terminal, JSON lines elsewhere (LOG_FORMAT overrides), at LOG_LEVEL;
 * with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), a line logged inside a span (a request,
 * a delivery attempt) carries its `trace_id` and `span_id`.
 */
export const LoggingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const format = Option.getOrElse(config.logFormat, () => (process.stdout.isTTY ? "pretty" : "json"))
  const logger = format === "json" ? Logger.jsonLogger.pipe(Logger.withConsoleLog) : Logger.prettyLoggerDefault
  return Layer.merge(
    Logger.replace(Logger.defaultLogger, Option.isSome(config.otlpEndpoint) ? withTraceIds(logger) : logger),
    Logger.minimumLogLevel(levels[config.logLevel] ?? LogLevel.Info)
  )
}))
