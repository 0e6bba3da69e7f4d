import type { Page } from "@platform/shared"

/** Opaque list cursors (DESIGN §5 "Lists"): the base64url of a row id. */
export const encodeCursor = (id: number): string => Buffer.from(`id:${id}`, "utf8").toString("base64url")

/** A cursor that does not decode pages to nothing rather than failing (unknown values give empty results). */
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
 * direction is `before` when only `before` is given. `null` for a cursor that
 * does not decode (an empty page).
 */
export const cursorRange = (query: { readonly after?: string | undefined; readonly before?: string | undefined }) => {
  const after = decodeCursor(query.after)
  const before = decodeCursor(query.before)
  if (after === null || before === null) return null
  return {
    below: after ?? Number.MAX_SAFE_INTEGER,
    above: before ?? 0,
    direction: before !== undefined && after === undefined ? "before" as const : "after" as const
  }
}
