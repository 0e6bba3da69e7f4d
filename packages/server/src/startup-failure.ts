import { Cause, Data, Effect } from "effect"

/** A reason the server cannot start that a developer fixes by hand; main prints its message, not a stack trace. */
export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}

/** `listen EADDRINUSE`, however deep in a ServeError's causes. */
const portInUse = (error: unknown): number | undefined => {
  for (let e: unknown = error; e instanceof Object; e = (e as { cause?: unknown }).cause) {
    const { code, port } = e as { code?: unknown; port?: unknown }
    if (code === "EADDRINUSE") return typeof port === "number" ? port : Number.NaN
  }
  return undefined
}

/** The one line that says why the server did not start and what to do, when the cause is one of those; else undefined. */
export const startupMessage = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const error of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    if (error instanceof StartupError) return error.message
    const port = portInUse(error)
    if (port !== undefined) {
      return `Port ${Number.isNaN(port) ? "" : `${port} `}is already in use (another server, or an earlier \`npm start\` still running): ` +
        "stop it, or start this one with PORT=<another port>."
    }
  }
  return undefined
}

/**
 * Ends a failed start with exit code 1 and one readable line on stderr for the failures a
 * developer meets on a laptop (the port taken, the embedded database open in another
 * process); any other failure goes on to the runtime's usual report.
 */
export const explainStartupFailure = (cause: Cause.Cause<unknown>) => {
  const message = startupMessage(cause)
  if (message === undefined) return Effect.failCause(cause)
  return Effect.sync(() => {
    process.stderr.write(`Cannot start: ${message}\n`)
    process.exitCode = 1
  })
}
