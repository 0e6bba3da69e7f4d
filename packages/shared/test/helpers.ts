import { Either, ParseResult, Schema } from "effect"

/** Decodes with errors "all" and returns the formatted issues (empty when valid). */
export const issuesOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all" })(input)
  return Either.isLeft(result) ? ParseResult.ArrayFormatter.formatErrorSync(result.left) : []
}

/** The paths of the issues, for "the error points at this field" assertions. */
export const pathsOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  issuesOf(schema, input).map((i) => i.path)

/** Decode then encode. */
export const roundTrip = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.encodeSync(schema)(Schema.decodeUnknownSync(schema)(input))
