import { Schema } from "effect"
import { optional } from "./common.js"
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_LIMIT_MIN } from "./limits.js"
import { DecimalIntString, IntegerParam } from "./param.js"

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

export { DecimalIntString }

/** An integer from its decimal text (query and path parameters are strings on the wire). */
const decimalInt = Schema.compose(DecimalIntString, Schema.NumberFromString).pipe(Schema.int())

/** `limit` query parameter: a string on the wire, an integer 1..200 once decoded. */
const LIST_LIMIT_DESCRIPTION = `Page size, ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX} rows (default ${LIST_LIMIT_DEFAULT}).`
export const ListLimit = IntegerParam(LIST_LIMIT_DESCRIPTION, { minimum: LIST_LIMIT_MIN, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT }).pipe(
  Schema.between(LIST_LIMIT_MIN, LIST_LIMIT_MAX, {
    message: () => `must be an integer between ${LIST_LIMIT_MIN} and ${LIST_LIMIT_MAX}`,
    description: LIST_LIMIT_DESCRIPTION
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
