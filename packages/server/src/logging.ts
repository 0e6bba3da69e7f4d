import { Cause, Effect, HashMap, Layer, Logger, LogLevel, Option } from "effect"
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

const paint = (color: boolean, code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text)
const levelColors: Record<string, string> = { DEBUG: "2", INFO: "32", WARN: "33", ERROR: "31", FATAL: "31;1" }

const valueText = (value: unknown) => {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value)
  return /[\s"=]/.test(text) ? JSON.stringify(text) : text
}

/**
 * The log on a terminal: one line per entry (`12:00:01.234 POST /platform/v1/messages 200
 * 4.1 ms req_...` for an access line, `12:00:01.234 WARN message key=value` otherwise),
 * a cause's trace after its line. Effect's pretty logger spends a line on every annotation,
 * six per request, so the first-run block and a demo send scrolled off the screen.
 */
export const terminalLogger = (color: boolean) =>
  Logger.make(({ annotations, cause, date, logLevel, message }) => {
    const time = paint(color, "2", date.toTimeString().slice(0, 8) + "." + String(date.getMilliseconds()).padStart(3, "0"))
    const fields = Object.fromEntries(HashMap.toEntries(annotations))
    const text = (Array.isArray(message) ? message : [message]).map((m) => (typeof m === "string" ? m : valueText(m))).join(" ")
    const label = logLevel.label
    let line: string
    if (text === "request" && typeof fields.path === "string") {
      const { method, path, status, duration_ms, request_id, ...rest } = fields
      const code = Number(status)
      const shown = paint(color, code >= 500 ? "31" : code >= 400 ? "33" : "32", String(status))
      const extra = Object.entries(rest).map(([k, v]) => ` ${k}=${valueText(v)}`).join("")
      line = `${time} ${String(method)} ${path} ${shown} ${String(duration_ms)} ms ${paint(color, "2", String(request_id))}${extra}`
    } else {
      const extra = Object.entries(fields).map(([k, v]) => ` ${paint(color, "2", `${k}=`)}${valueText(v)}`).join("")
      line = `${time} ${paint(color, levelColors[label] ?? "0", label)} ${text}${extra}`
    }
    const trace = Cause.isEmpty(cause) ? "" : `\n${Cause.pretty(cause, { renderErrorCause: true })}`
    globalThis.console.log(line + trace)
  })

/**
 * One line per entry on a terminal, JSON lines elsewhere (LOG_FORMAT overrides), at LOG_LEVEL;
 * with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), a line logged inside a span (a request,
 * a delivery attempt) carries its `trace_id` and `span_id`.
 */
export const LoggingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const format = Option.getOrElse(config.logFormat, () => (process.stdout.isTTY ? "pretty" : "json"))
  const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined
  const logger = format === "json" ? Logger.jsonLogger.pipe(Logger.withConsoleLog) : terminalLogger(color)
  return Layer.merge(
    Logger.replace(Logger.defaultLogger, Option.isSome(config.otlpEndpoint) ? withTraceIds(logger) : logger),
    Logger.minimumLogLevel(levels[config.logLevel] ?? LogLevel.Info)
  )
}))
