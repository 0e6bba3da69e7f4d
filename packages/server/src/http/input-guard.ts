import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { InputGuard, SECRET_KEYS, ValidationFailed } from "@platform/shared"
import { Effect, Layer } from "effect"

type Detail = ValidationFailed["detail"][number]
type Loc = Detail["loc"]

const NUL = "\u0000"

/*
 * A lone UTF-16 surrogate (JSON's "\ud800" without its pair) is no character:
 * Postgres refuses it in text and jsonb, so a send that carried one was made
 * upstream and then failed to be stored, a 500.
 */
const LONE_SURROGATE = /\p{Cs}/u

/** Why a string cannot be taken, if it cannot. */
const problemOf = (s: string): string | undefined =>
  s.includes(NUL)
    ? "must not contain the character U+0000"
    : LONE_SURROGATE.test(s)
    ? "must not contain an unpaired UTF-16 surrogate (an escape such as \\ud800 without its pair)"
    : undefined

/** A secret (a two-factor PIN, a password) is never echoed back, even when it is what was wrong. */
const issue = (loc: Loc, input: string, msg: string): Detail => ({
  loc,
  msg,
  type: "value_error",
  input: SECRET_KEYS.has(String(loc[loc.length - 1])) ? null : input,
  ctx: {}
})

/** Every string (value or key) of a JSON value that holds U+0000 or a lone surrogate, with its location. */
const stringIssues = (value: unknown, loc: Loc, out: Array<Detail> = []): Array<Detail> => {
  if (typeof value === "string") {
    const problem = problemOf(value)
    if (problem !== undefined) out.push(issue(loc, value, problem))
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => stringIssues(item, [...loc, i], out))
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const problem = problemOf(key)
      if (problem !== undefined) out.push(issue([...loc, key], key, problem))
      else stringIssues(item, [...loc, key], out)
    }
  }
  return out
}

/**
 * How deeply a JSON body's arrays and objects may nest. Far beyond any real request
 * (passthrough objects such as `interactive` included); deeper ones overflowed the
 * stack when serialized for the upstream or hashed for an Idempotency-Key, a 500.
 */
export const JSON_MAX_DEPTH = 64

/** Whether JSON text nests arrays and objects deeper than `max` (a scan of the text, no recursion). */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

const tooDeep: Detail = {
  loc: ["body"],
  msg: `must not nest arrays and objects deeper than ${JSON_MAX_DEPTH} levels`,
  type: "value_error",
  input: null,
  ctx: { max_depth: JSON_MAX_DEPTH }
}

const jsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) return undefined
    // The request keeps the text it read: the endpoint's own decoding reads it again for free.
    const text = yield* Effect.orElseSucceed(request.text, () => "")
    if (nestsDeeperThan(text, JSON_MAX_DEPTH)) return yield* new ValidationFailed({ detail: [tooDeep] })
    // JSON can write U+0000 and a lone surrogate only as escapes (a raw U+0000 is malformed
    // JSON, a 422 of its own; raw surrogate bytes are not UTF-8 and decode to U+FFFD).
    if (!text.includes("\\u0000") && !/\\u[dD][89a-fA-F]/.test(text)) return undefined
    return yield* Effect.orElseSucceed(Effect.try(() => JSON.parse(text) as unknown), () => undefined)
  })

/**
 * The input guard of every group (PlatformApi): path parameters, query parameters
 * and a JSON body are searched for U+0000 and lone surrogates; the body is parsed
 * again only when its text holds such an escape.
 */
export const InputGuardLive = Layer.succeed(
  InputGuard,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const detail: Array<Detail> = []
    for (const [name, value] of Object.entries(yield* HttpRouter.params)) {
      const problem = value === undefined ? undefined : problemOf(value)
      if (problem !== undefined) detail.push(issue(["path", name], value!, problem))
    }
    const query = yield* HttpServerRequest.ParsedSearchParams
    stringIssues(query, ["query"], detail)
    const body = yield* jsonBody(request)
    if (body !== undefined) stringIssues(body, ["body"], detail)
    if (detail.length > 0) return yield* new ValidationFailed({ detail })
  })
)
