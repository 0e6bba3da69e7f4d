import { ParseResult, Schema } from "effect"

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/**
 * Whether the date part names a day of its month: Date.parse takes any day up to 31
 * and rolls over, so 2026-02-30 would silently be 2 March.
 */
const isCalendarDay = (s: string): boolean => {
  const year = Number(s.slice(0, 4))
  const month = Number(s.slice(5, 7))
  const day = Number(s.slice(8, 10))
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)
}

/**
 * ISO 8601 date-time with a time zone designator, kept as a string so the wire value
 * round-trips byte for byte (`2024-05-01T12:00:00Z`, `2024-05-01T12:00:00.123+02:00`).
 */
export const Timestamp = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: () => "must be an ISO 8601 date-time with a time zone (e.g. 2024-05-01T12:00:00Z)"
  }),
  Schema.filter((s) => (isCalendarDay(s) && !Number.isNaN(Date.parse(s))) || "must be a valid date-time"),
  Schema.annotations({ identifier: "Timestamp", description: "ISO 8601 date-time", format: "date-time" })
)

/** Integer ids of stored rows. */
export const Id = Schema.Int

/**
 * At most `max` characters, counted as Unicode code points like SPEC's "chars" and
 * JSON Schema's maxLength (Schema.maxLength counts UTF-16 units: an emoji twice).
 */
export const maxChars = (max: number, message: () => string = () => `must be at most ${max} characters`) =>
  Schema.filter<typeof Schema.String>((s) => {
    if (s.length <= max) return true
    let chars = 0
    for (const _ of s) if (++chars > max) return message()
    return true
  }, { message, jsonSchema: { maxLength: max } })

export const NonEmptyString = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }))

/** At least one character that is not whitespace: `""` and `"   "` are 422, like a missing value. */
export const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => /\S/u.test(s) || "must not be empty or only whitespace", {
    jsonSchema: { minLength: 1, pattern: "\\S" }
  })
)

/** Text a person reads as a name or description: not blank, and at most `max` characters. */
export const Label = (max: number) => NonBlankString.pipe(maxChars(max))

/** Optional key that, when present, holds a value (never `undefined`): JSON has no undefined. */
export const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** Open object with arbitrary keys and values (passthrough payloads, metadata). */
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => "must be a JSON object"
})

/** Marks a request body: unknown keys are a 422 (nested open objects such as records stay open). */
export const requestBody = <S extends Schema.Schema.Any>(schema: S, identifier: string): S =>
  schema.annotations({ identifier, parseOptions: { onExcessProperty: "error" } }) as S

/** Marks a route's query string: a parameter it does not take is a 422 (SPEC §4: unknown input), not silently ignored. */
export const queryParams = <S extends Schema.Schema.Any>(schema: S): S =>
  schema.annotations({ parseOptions: { onExcessProperty: "error" } }) as S

/**
 * The query string of a route that takes no parameter: any one given is 422 `extra_forbidden` at its name
 * (SPEC §4: unknown input). An empty `Schema.Struct({})` would not do: it accepts every object as it is.
 */
export const noQueryParams = Schema.Struct({}).pipe(
  Schema.filter((params) =>
    Object.entries(params).map(([name, value]) =>
      new ParseResult.Pointer(name, params, new ParseResult.Unexpected(value, "is unexpected: this route takes no query parameter"))
    )
  )
)

export type Issue = { readonly path: ReadonlyArray<PropertyKey>; readonly message: string }

/** "exactly one of link | id", shared by media objects and media parameters. */
export const exactlyOneOfLinkOrId = (m: { readonly link?: string; readonly id?: string }): Issue | undefined => {
  if (m.link !== undefined && m.id !== undefined) {
    return { path: ["id"], message: "exactly one of link or id is allowed, not both" }
  }
  if (m.link === undefined && m.id === undefined) {
    return { path: ["link"], message: "exactly one of link or id is required" }
  }
  return undefined
}
