import { Schema } from "effect"
import { optional } from "./common.js"
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_LIMIT_MIN } from "./limits.js"

/** List envelope of every paginated route: `{data, has_more, next_cursor}` (DESIGN §5 "Lists"). */
export const Page = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    data: Schema.Array(item),
    has_more: Schema.Boolean,
    next_cursor: Schema.NullOr(Schema.String)
  })

export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/**
 * Text of an integer as a URL carries it: decimal digits, an optional minus. NumberFromString alone takes
 * anything Number() does, so `0x10` was 16, `1e2` 100 and ` 7` 7.
 */
export const DecimalIntString = Schema.String.pipe(
  Schema.pattern(/^-?\d+$/, { message: () => "must be an integer in decimal digits" })
)

/** An integer from its decimal text (query and path parameters are strings on the wire). */
const decimalInt = Schema.compose(DecimalIntString, Schema.NumberFromString).pipe(Schema.int())

/** `limit` query parameter: a string on the wire, an integer 1..200 once decoded. */
export const ListLimit = decimalInt.pipe(
  Schema.between(LIST_LIMIT_MIN, LIST_LIMIT_MAX, {
    message: () => `must be an integer between ${LIST_LIMIT_MIN} and ${LIST_LIMIT_MAX}`
  })
)

/** Common list query parameters: `limit` (default 50) and the opaque `after`/`before` cursors. */
export const ListQueryFields = {
  limit: Schema.optionalWith(ListLimit, { default: () => LIST_LIMIT_DEFAULT }),
  after: optional(Schema.String.annotations({
    description: "Rows after this cursor in the list's order (older): a page's `next_cursor`."
  })),
  before: optional(Schema.String.annotations({
    description: "Rows before this cursor (newer), the nearest first; the page still lists newest first and its " +
      "`next_cursor` goes on towards newer rows (pass it as `before`). With `after`, the rows between the two."
  }))
}

// No identifier: OpenAPI documents the query parameters of a struct, not of a $ref to one.
export const ListQuery = Schema.Struct(ListQueryFields)
export type ListQuery = typeof ListQuery.Type

/** Integer query parameter (query params are strings on the wire), in decimal digits. */
export const IntFromString = decimalInt
