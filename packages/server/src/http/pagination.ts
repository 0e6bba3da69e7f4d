import { type Page, ValidationFailed } from "@platform/shared"
import { Effect } from "effect"

/** Opaque list cursors (DESIGN §5 "Lists"): the base64url of a row id. */
export const encodeCursor = (id: number): string => Buffer.from(`id:${id}`, "utf8").toString("base64url")

/** The row id of a cursor; `null` when it is not one this API issued. */
export const decodeCursor = (cursor: string | undefined): number | null | undefined => {
  if (cursor === undefined) return undefined
  const match = /^id:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  return match ? Number(match[1]) : null
}

/**
 * Rows fetched with `limit + 1` from the cursor onwards: newest first after an
 * `after` cursor (or none), oldest first after a `before` cursor (the rows nearest
 * it). The page lists them newest first; `has_more` and `next_cursor` go on in the
 * request's direction: towards older rows (pass it as `after`) or, for `before`,
 * towards newer rows (pass it as `before`).
 */
export const toPage = <Row extends { readonly id: number }, A>(
  rows: ReadonlyArray<Row>,
  limit: number,
  direction: "after" | "before",
  map: (row: Row) => A
): Page<A> => {
  const hasMore = rows.length > limit
  const slice = rows.slice(0, limit)
  const farthest = slice[slice.length - 1]
  return {
    data: (direction === "before" ? [...slice].reverse() : slice).map(map),
    has_more: hasMore,
    next_cursor: hasMore && farthest !== undefined ? encodeCursor(farthest.id) : null
  }
}

/**
 * Where a list reads from its cursors: `after` (older than it) and `before`
 * (newer than it) bound the ids, both together the rows between them; the
 * direction is `before` when only `before` is given. A cursor this API did not
 * issue (mistyped, truncated) is 422 at its parameter: an empty page would read
 * as the end of the list, and a loop over the pages would stop early without a word.
 */
export const cursorRange = (query: { readonly after?: string | undefined; readonly before?: string | undefined }) => {
  const after = decodeCursor(query.after)
  const before = decodeCursor(query.before)
  const bad = after === null ? "after" : before === null ? "before" : undefined
  if (bad !== undefined) {
    return Effect.fail(
      new ValidationFailed({
        detail: [{
          loc: ["query", bad],
          msg: "is not a cursor of this list: pass a page's next_cursor as it came",
          type: "value_error",
          input: query[bad] ?? null,
          ctx: {}
        }]
      })
    )
  }
  return Effect.succeed({
    below: after ?? Number.MAX_SAFE_INTEGER,
    above: before ?? 0,
    direction: before !== undefined && after === undefined ? "before" as const : "after" as const
  })
}
