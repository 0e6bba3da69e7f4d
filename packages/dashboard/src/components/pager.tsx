import { cursorOf } from "../api/cursor"
import { Link, type Location, queryWith } from "../router"

/**
 * Cursor pages of a list (DESIGN §5 "Lists"), newest first: the cursor is in the URL
 * (`after` towards older rows, `before` towards newer), so a page can be bookmarked and
 * the browser's back button returns to the page before.
 *
 * `nextCursor` and `hasMore` are the list envelope's; they go on in the direction the page
 * was asked for (older after `after` or none, newer after `before`). With `rows` (the
 * page's rows, which carry their ids) the pager also offers the other direction: « Newer
 * before the first row, Older » after the last. Without `rows` it offers « Newest and the
 * envelope's own direction only.
 */
export const Pager = ({ location, nextCursor, hasMore, rows }: {
  location: Location
  nextCursor: string | null
  hasMore: boolean
  rows?: ReadonlyArray<{ readonly id: number }>
}) => {
  const q = location.query
  const paged = q.has("after") || q.has("before")
  const backwards = q.has("before") && !q.has("after")
  const to = (changes: Record<string, string | undefined>) => `${location.path}${queryWith(q, changes)}`
  const onward = hasMore && nextCursor !== null ? nextCursor : undefined
  const first = rows?.[0]
  const last = rows?.[rows.length - 1]
  // Towards newer rows: the envelope's cursor after a `before` page, else before this page's first row.
  const newer = backwards ? onward : paged && first !== undefined ? cursorOf(first.id) : undefined
  // Towards older rows: the envelope's cursor after an `after` page, else after this page's last row.
  const older = !backwards ? onward : last !== undefined ? cursorOf(last.id) : undefined
  if (!paged && older === undefined) return null
  return (
    <nav className="pager" aria-label="Pages">
      {paged ? <Link to={to({ after: undefined, before: undefined })}>« Newest</Link> : null}
      {newer !== undefined ? <Link to={to({ after: undefined, before: newer })}>« Newer</Link> : null}
      {older !== undefined ? <Link to={to({ after: older, before: undefined })}>Older »</Link> : null}
    </nav>
  )
}
