/**
 * The cursor of a listed row, for paging back towards newer rows. The list envelope
 * (`{data, has_more, next_cursor}`, DESIGN §5 "Lists") gives only the cursor that goes on
 * in the request's direction; the way back starts at the page's edge row: `before` its
 * first row (newer) or `after` its last (older). The server's cursors are the base64url of
 * `id:<row id>` (packages/server/src/http/pagination.ts `encodeCursor`), and every list's
 * rows carry that id; the console's paging test walks both ways against the real server,
 * so a change of the encoding fails there.
 */
export const cursorOf = (id: number): string =>
  btoa(`id:${id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
