/**
 * What every request of the safe HTTP client goes through, a fetch or a download:
 * the target check, the headers it may send, its deadline, abandoning a body it will
 * not read, and the bridge from the Promise side of the client to an Effect.
 */
import { Effect } from "effect"
import type { Dispatcher } from "undici"
import type { Resolver } from "./dns-resolver.js"
import { type CheckedTarget, checkUrl, type SsrfRejected } from "./ssrf.js"

export const DEFAULT_TIMEOUT_MS = 10_000

/** Headers the client owns: Host must stay the checked hostname, framing is undici's. */
const OWNED_HEADERS = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "expect",
  "te",
  "trailer"
])

export const requestHeaders = (headers: Readonly<Record<string, string>> | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  if (headers === undefined) return out
  for (const [name, value] of Object.entries(headers)) {
    if (!OWNED_HEADERS.has(name.toLowerCase())) out[name] = value
  }
  return out
}

export type ResponseBody = Dispatcher.ResponseData["body"]

/** Abandons a body (and its connection) without an unhandled 'error' event. */
export const discard = (body: ResponseBody): void => {
  body.on("error", () => undefined)
  body.destroy()
}

/** A result that never rejects: what the Promise side of the client hands back. */
export type Outcome<A, E> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: E }

/**
 * Runs an exchange as an Effect; interruption aborts its controller (the same one
 * its deadline uses, so one AbortController per request).
 */
export const fromOutcome = <A, E>(run: (controller: AbortController) => Promise<Outcome<A, E>>): Effect.Effect<A, E> =>
  Effect.async<A, E>((resume) => {
    const controller = new AbortController()
    run(controller).then((outcome) => resume(outcome.ok ? Effect.succeed(outcome.value) : Effect.fail(outcome.error)))
    return Effect.sync(() => controller.abort())
  })

/**
 * A deadline on `controller`: aborts it after `timeoutMs` (and says so in `state`).
 * The caller may abort the same controller itself (interruption, shutdown).
 */
export const deadline = (controller: AbortController, timeoutMs: number) => {
  const state = { timedOut: false }
  const timer = setTimeout(() => {
    state.timedOut = true
    controller.abort(new Error(`deadline of ${timeoutMs} ms exceeded`))
  }, timeoutMs)
  return {
    signal: controller.signal,
    state,
    done: () => clearTimeout(timer)
  }
}

export const resolveTarget = (
  target: CheckedTarget | string,
  allowLocal: boolean,
  resolver: Resolver | undefined
): Effect.Effect<CheckedTarget, SsrfRejected> =>
  typeof target === "string"
    ? checkUrl(target, resolver === undefined ? { allowLocal } : { allowLocal, resolver })
    : Effect.succeed(target)

export const pathOf = (url: URL) => `${url.pathname}${url.search}`
