import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { AppConfig } from "./config.js"

const levels: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/** Pretty logs on a terminal, JSON lines elsewhere (LOG_FORMAT overrides), at LOG_LEVEL. */
export const LoggingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const format = Option.getOrElse(config.logFormat, () => (process.stdout.isTTY ? "pretty" : "json"))
  return Layer.merge(
    format === "json" ? Logger.json : Logger.pretty,
    Logger.minimumLogLevel(levels[config.logLevel] ?? LogLevel.Info)
  )
}))
