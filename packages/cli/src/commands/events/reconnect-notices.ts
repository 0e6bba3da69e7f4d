import { APIError, type LastEventIdNotFound } from "@platform/sdk"
import type { Context } from "../../context.js"

/** Why a stream connection failed or ended, in a few words: `HTTP 429`, `ECONNREFUSED`, `the server ended the stream`. */
export const streamFailure = (error: unknown): string => {
  if (error === undefined) return "the server ended the stream"
  if (error instanceof APIError) return `HTTP ${error.status}`
  for (let e: unknown = error; e instanceof Object; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string") return code
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * The event stream callbacks of `events tail` and `listen`: one line per reconnect that says whether a connection
 * was ever open and why it failed, and a warning when the server could not resume after the event asked for.
 */
export const reconnectNotices = (ctx: Context, onOpen: (info: { readonly reconnect: boolean }) => void = () => undefined) => {
  let state: "connecting" | "open" | "reconnecting" = "connecting"
  return {
    onOpen: (info: { readonly reconnect: boolean }) => {
      state = "open"
      onOpen(info)
    },
    onReconnect: ({ delayMs, error }: { readonly delayMs: number; readonly error: unknown }) => {
      const seconds = `${(delayMs / 1000).toFixed(1)} s`
      const cause = streamFailure(error)
      const line =
        state === "open"
          ? `Connection lost (${cause}); reconnecting in ${seconds}`
          : `${state === "connecting" ? "Connecting to the event stream" : "Reconnecting"} failed (${cause}); retrying in ${seconds}`
      ctx.out.info(ctx.out.ce.yellow(line))
      if (state === "open") state = "reconnecting"
    },
    onLastEventIdNotFound: (info: LastEventIdNotFound) => ctx.out.info(ctx.out.ce.yellow(`Warning: ${info.message}`))
  }
}
