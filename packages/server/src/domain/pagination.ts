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
 * Rows fetched with `limit + 1` newest first (or oldest first for `before`),
 * turned into a page: `next_cursor` continues towards older rows.
 */
export const toPage = <Row extends { readonly id: number }, A>(
  rows: ReadonlyArray<Row>,
  limit: number,
  direction: "after" | "before",
  map: (row: Row) => A
): Page<A> => {
  const hasMore = rows.length > limit
  const slice = rows.slice(0, limit)
  const ordered = direction === "before" ? [...slice].reverse() : slice
  const last = ordered[ordered.length - 1]
  return {
    data: ordered.map(map),
    has_more: direction === "before" ? true : hasMore,
    next_cursor: (direction === "before" || hasMore) && last !== undefined ? encodeCursor(last.id) : null
  }
}
