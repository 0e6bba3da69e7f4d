import { Link, type Location, queryWith } from "../router"

/**
 * Cursor pages of a list (DESIGN §5 "Lists"): the cursor is in the URL (`after`), so a
 * page can be bookmarked and the browser's back button returns to the newer page.
 */
export const Pager = ({ location, nextCursor, hasMore }: { location: Location; nextCursor: string | null; hasMore: boolean }) => {
  const paged = location.query.has("after") || location.query.has("before")
  if (!paged && !hasMore) return null
  return (
    <nav className="pager" aria-label="Pages">
      {paged ? <Link to={`${location.path}${queryWith(location.query, { after: undefined, before: undefined })}`}>« Newest</Link> : null}
      {hasMore && nextCursor !== null
        ? <Link to={`${location.path}${queryWith(location.query, { after: nextCursor, before: undefined })}`}>Older »</Link>
        : null}
    </nav>
  )
}
