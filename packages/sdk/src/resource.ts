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

const REQUEST_OPTION_KEYS = new Set(["timeout", "maxRetries", "idempotencyKey", "signal", "headers"])

/** Edit distance of two short keys, for "did you mean". */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]!
}

/**
 * The options of a call that go into its query string: only the keys the method knows. Any other key (a typo
 * such as `limt`, a request option put in the wrong argument) throws a TypeError before anything is sent: the
 * server would not know it either, and the call would quietly run without it. Keys holding `undefined` are skipped.
 */
export const knownParams = <K extends string>(
  method: string,
  params: object | undefined,
  known: ReadonlyArray<K>
): { [P in K]?: QueryValue } => {
  if (params === undefined) return {}
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    throw new TypeError(`@platform/sdk: ${method}() takes an options object, not ${Array.isArray(params) ? "an array" : String(params)}`)
  }
  const out: Record<string, QueryValue> = {}
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue
    if (!(known as ReadonlyArray<string>).includes(key)) {
      const near = known
        .filter((k) => distance(k, key) <= 2 || k.startsWith(key) || key.startsWith(k))
        .sort((a, b) => distance(a, key) - distance(b, key))[0]
      const hint = near !== undefined
        ? ` (did you mean "${near}"?)`
        : REQUEST_OPTION_KEYS.has(key)
        ? ` ("${key}" is a request option: pass it in the last argument)`
        : ""
      throw new TypeError(
        `@platform/sdk: ${method}() got an unknown option "${key}"${hint}; it takes ${known.map((k) => `"${k}"`).join(", ")}`
      )
    }
    out[key] = value as QueryValue
  }
  return out as { [P in K]?: QueryValue }
}

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
