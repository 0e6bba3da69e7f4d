import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { InputGuard, ValidationFailed } from "@platform/shared"
import { Effect, Layer } from "effect"

type Detail = ValidationFailed["detail"][number]
type Loc = Detail["loc"]

const NUL = "\u0000"

const issue = (loc: Loc, input: unknown): Detail => ({
  loc,
  msg: "must not contain the character U+0000",
  type: "value_error",
  input,
  ctx: {}
})

/** Every string (value or key) of a JSON value that holds U+0000, with its location. */
const nulIssues = (value: unknown, loc: Loc, out: Array<Detail> = []): Array<Detail> => {
  if (typeof value === "string") {
    if (value.includes(NUL)) out.push(issue(loc, value))
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulIssues(item, [...loc, i], out))
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes(NUL)) out.push(issue([...loc, key], key))
      else nulIssues(item, [...loc, key], out)
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
    // JSON can write U+0000 only as this escape (a raw one is malformed JSON, a 422 of its own).
    if (!text.includes("\\u0000")) return undefined
    return yield* Effect.orElseSucceed(Effect.try(() => JSON.parse(text) as unknown), () => undefined)
  })

/**
 * The input guard of every group (PlatformApi): path parameters, query parameters
 * and a JSON body are searched for U+0000; the body is parsed again only when its
 * text holds the escape.
 */
export const InputGuardLive = Layer.succeed(
  InputGuard,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const detail: Array<Detail> = []
    for (const [name, value] of Object.entries(yield* HttpRouter.params)) {
      if (value?.includes(NUL)) detail.push(issue(["path", name], value))
    }
    const query = yield* HttpServerRequest.ParsedSearchParams
    nulIssues(query, ["query"], detail)
    const body = yield* jsonBody(request)
    if (body !== undefined) nulIssues(body, ["body"], detail)
    if (detail.length > 0) return yield* new ValidationFailed({ detail })
  })
)
