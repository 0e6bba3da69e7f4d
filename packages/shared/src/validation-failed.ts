import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { ParseResult, Schema } from "effect"

/*
 * The 422 of SPEC §7, `{"detail": [{loc, msg, type, input, ctx}]}`: one issue per field, built
 * from Effect's parse issues at the request part they were found in, with secrets never echoed.
 */

/** One item of a 422 validation body; `loc` such as `["body", "components", 0, "format"]`. */
export const ValidationIssue = Schema.Struct({
  loc: Schema.Array(Schema.Union(Schema.String, Schema.Int)),
  msg: Schema.String,
  type: Schema.String,
  input: Schema.Unknown,
  ctx: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ identifier: "ValidationIssue" })
export type ValidationIssue = typeof ValidationIssue.Type

export type ValidationLocation = "body" | "query" | "path" | "header"

const issueType = (tag: string) => (tag === "Missing" ? "missing" : tag === "Unexpected" ? "extra_forbidden" : "value_error")

/**
 * The input at `path`, or at its deepest part the raw input has: a value decoded
 * from text (`?event_types=a,b` into a list) fails at a path only the decoded
 * value has, and the text it came from is then what was sent.
 */
const at = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let value = input
  for (const key of path) {
    const next = value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined
    if (next === undefined) return value
    value = next
  }
  return value
}

interface FormattedIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const EXPECTED = /^Expected (.+), actual (.+)$/s
const ABSENT = /^Expected (null|undefined), actual /

/**
 * One issue per failing value: a union reports one issue per member it tried, so
 * `?mode=bogus` would read "Expected "native"…", "Expected "meta"…", "Expected
 * undefined…". At one path, the members "null" and "undefined" of an optional or
 * nullable field go when another member says more (at that path or inside the
 * value), and plain mismatches merge into one "Expected a | b, actual x".
 */
const collapseUnionIssues = (issues: ReadonlyArray<FormattedIssue>): ReadonlyArray<FormattedIssue> => {
  const keys = issues.map((issue) => JSON.stringify(issue.path.map(String)))
  // A nullable object whose member failed inside: "Expected null" for the object says nothing more.
  const insideOf = (key: string) => keys.some((k) => k.length > key.length && k.startsWith(key.slice(0, -1) + ","))
  const byPath = new Map<string, Array<FormattedIssue>>()
  for (const issue of issues) {
    if (issue._tag === "Type" && ABSENT.test(issue.message) && insideOf(JSON.stringify(issue.path.map(String)))) continue
    const key = JSON.stringify(issue.path.map(String))
    const group = byPath.get(key)
    if (group === undefined) byPath.set(key, [issue])
    else group.push(issue)
  }
  return [...byPath.values()].flatMap((group) => {
    if (group.length === 1) return group
    const specific = group.filter((i) => !(i._tag === "Type" && ABSENT.test(i.message)))
    const kept = specific.length > 0 ? specific : group
    const mismatches = kept.map((i) => (i._tag === "Type" ? EXPECTED.exec(i.message) : null))
    if (kept.length === 1 || mismatches.some((m) => m === null)) return kept
    const matched = mismatches as Array<RegExpExecArray>
    const expected = [...new Set(matched.map((m) => m[1]))].join(" | ")
    return [{ ...kept[0], message: `Expected ${expected}, actual ${matched[0][2]}` }]
  })
}

/** Request fields whose value is a secret: a 422 never echoes them (in `input` or in `msg`). */
export const SECRET_KEYS: ReadonlySet<string> = new Set(["password", "pin", "secret", "webhook_secret"])

const REDACTED = "[redacted]"

/** `input` without secrets: null for a secret itself, an object's secret members replaced. */
const redact = (path: ReadonlyArray<PropertyKey>, value: unknown): unknown => {
  if (path.length > 0 && SECRET_KEYS.has(String(path[path.length - 1]))) return null
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value
  if (!Object.keys(value).some((k) => SECRET_KEYS.has(k))) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.has(k) ? REDACTED : v]))
}

/** "Expected string, actual 12345678" says the secret: keep what was expected. */
const redactMessage = (path: ReadonlyArray<PropertyKey>, message: string): string =>
  path.length > 0 && SECRET_KEYS.has(String(path[path.length - 1])) ? message.replace(/, actual [\s\S]*$/, "") : message

/** 422 `{"detail": [{loc, msg, type, input, ctx}]}` (SPEC §7). */
export class ValidationFailed extends Schema.TaggedError<ValidationFailed>()(
  "ValidationFailed",
  { detail: Schema.Array(ValidationIssue) },
  HttpApiSchema.annotations<any>({ status: 422 })
) {
  /** From formatted issues (`ParseResult.ArrayFormatter`, `HttpApiDecodeError.issues`); `input` is the decoded value. */
  static fromIssues(
    issues: ReadonlyArray<FormattedIssue>,
    location: ValidationLocation,
    input?: unknown
  ): ValidationFailed {
    return new ValidationFailed({
      detail: collapseUnionIssues(issues).map((i) => {
        const value = redact(i.path, at(input, i.path)) // a missing field: the object that lacks it
        return {
          loc: [location, ...i.path.map((k) => (typeof k === "number" ? k : String(k)))],
          msg: redactMessage(i.path, i.message),
          type: issueType(i._tag),
          input: value === undefined ? null : value,
          ctx: {}
        }
      })
    })
  }

  /** From a ParseError of decoding `input` (the request part named by `location`). */
  static fromParseError(error: ParseResult.ParseError, location: ValidationLocation, input: unknown): ValidationFailed {
    return ValidationFailed.fromIssues(ParseResult.ArrayFormatter.formatErrorSync(error), location, input)
  }
}
