import { ApiError, apiErrorOf } from "./api-error"

/** Query parameters: unset values are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined | null>>

export const withQuery = (path: string, query: Query = {}): string => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(key, String(value))
  const text = params.toString()
  return text === "" ? path : `${path}?${text}`
}

/** Called when a request answers 401: the session ended (logged out elsewhere, expired). */
let onUnauthorized: () => void = () => {}
export const setUnauthorizedHandler = (handler: () => void) => {
  onUnauthorized = handler
}

/**
 * One request to this origin's API with the session cookie. Same origin, so the
 * browser sends `Origin` and `Sec-Fetch-Site: same-origin`, which the CSRF rule wants.
 * The answer is the parsed JSON body; a non-2xx is thrown as an ApiError (a 401 other
 * than a login's first ends the session in the page).
 */
const send = async <A>(method: string, path: string, init: { readonly headers?: Record<string, string>; readonly body?: BodyInit }): Promise<A> => {
  let response: Response
  try {
    response = await fetch(path, { method, credentials: "same-origin", headers: { accept: "application/json", ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) })
  } catch {
    throw new ApiError(0, "The server could not be reached. Is it running?", undefined, "network", undefined)
  }
  const text = await response.text()
  let parsed: unknown = undefined
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = text
  }
  if (!response.ok) {
    const error = apiErrorOf(response.status, parsed)
    if (response.status === 401 && !path.endsWith("/login")) onUnauthorized()
    throw error
  }
  return parsed as A
}

/** A JSON request (or none) to this origin's API, with `query` in the URL. */
export const request = <A>(method: string, path: string, body?: unknown, query?: Query): Promise<A> =>
  send<A>(method, withQuery(path, query), body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

export const get = <A>(path: string, query?: Query) => request<A>("GET", path, undefined, query)
export const post = <A>(path: string, body?: unknown, query?: Query) => request<A>("POST", path, body, query)
export const patch = <A>(path: string, body: unknown) => request<A>("PATCH", path, body)
export const del = (path: string) => request<void>("DELETE", path)

/**
 * A multipart form to this origin's API (a file upload): the browser sets the boundary, the
 * fields go in the order they were appended (the server reads `channel_id` before `file`).
 */
export const postForm = <A>(path: string, form: FormData): Promise<A> => send<A>("POST", path, { body: form })
