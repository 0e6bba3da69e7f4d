import { HashMap, Logger } from "effect"

/** One log line as a test inspects it. */
export interface CapturedLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** A logger layer that replaces the default one and keeps every line in `lines`. */
export const captureLogs = () => {
  const lines: Array<CapturedLine> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) => {
      lines.push({
        level: logLevel.label,
        message: Array.isArray(message) ? message.join(" ") : String(message),
        annotations: Object.fromEntries(HashMap.toEntries(annotations))
      })
    })
  )
  return { lines, layer } as const
}
