import type { APIClient } from "./core/request.js"

/** Base of the resource classes: holds the client they call through. */
export abstract class APIResource {
  protected readonly _client: APIClient
  constructor(client: APIClient) {
    this._client = client
  }
}

/** Encodes one path segment. */
export const seg = (value: string | number): string => encodeURIComponent(String(value))

import { CursorPage, type PageBody, type PageLoader, PagePromise } from "./core/pagination.js"
import type { QueryValue, RequestOptions } from "./core/request.js"

/**
 * Builds a cursor-paginated list call whose later pages reuse the query with the page's `next_cursor`, in the
 * direction the list was asked for: as `before` when only `before` was given (paging towards newer rows), else as
 * `after` (towards older rows; a `before` given with `after` stays, as the bound of the rows between them).
 */
export const listPages = <T, B extends PageBody<T>, P extends CursorPage<T>>(
  client: APIClient,
  path: string,
  query: Readonly<Record<string, QueryValue>>,
  options: RequestOptions | undefined,
  make: (body: B, load: PageLoader<T, P>) => P
): PagePromise<T, P> => {
  const towardsNewer = query.before != null && query.after == null
  const load: PageLoader<T, P> = async (cursor, pageOptions) => {
    const q = cursor === undefined ? query : towardsNewer ? { ...query, before: cursor } : { ...query, after: cursor }
    const body = await client.request<B>({ method: "GET", path, query: q }, pageOptions ?? options)
    return make(body, load)
  }
  return new PagePromise<T, P>(() => load(undefined, options))
}

/** Builds a plain cursor page. */
export const cursorPage = <T>(body: PageBody<T>, load: PageLoader<T, CursorPage<T>>): CursorPage<T> => new CursorPage(body, load)
