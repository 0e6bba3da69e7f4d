import { Schema } from "effect"

/**
 * Text of an integer as a URL carries it: decimal digits, an optional minus. NumberFromString alone takes
 * anything Number() does, so `0x10` was 16, `1e2` 100 and ` 7` 7.
 */
export const DecimalIntString = Schema.String.pipe(
  Schema.pattern(/^-?\d+$/, { message: () => "must be an integer in decimal digits" })
)

/**
 * An integer path or query parameter: decoded from its text, and described to OpenAPI
 * as the integer it is (NumberFromString alone documents `type: string`, "a string to
 * be decoded into a number").
 */
export const IntegerParam = (description: string, jsonSchema: Record<string, unknown> = {}) =>
  Schema.compose(DecimalIntString.annotations({ jsonSchema: { type: "integer", description, ...jsonSchema } }), Schema.NumberFromString)
    .pipe(Schema.int())

/** A `true`/`false` query parameter, described to OpenAPI as a boolean. */
export const BooleanParam = (description: string) =>
  Schema.compose(Schema.String.annotations({ jsonSchema: { type: "boolean", description } }), Schema.BooleanFromString)
