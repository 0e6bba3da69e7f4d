import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from "react"

/** Where the server serves the console; every page's URL is under it. */
export const BASE = "/dashboard"

const listeners = new Set<() => void>()
const notify = () => listeners.forEach((l) => l())
if (typeof window !== "undefined") window.addEventListener("popstate", notify)

/** Goes to a console path (`/keys?x=1`), adding a history entry unless `replace`. */
export const navigate = (to: string, options: { replace?: boolean } = {}) => {
  const url = to.startsWith(BASE) ? to : `${BASE}${to === "/" ? "" : to}`
  if (options.replace === true) history.replaceState(null, "", url)
  else history.pushState(null, "", url)
  window.scrollTo(0, 0)
  notify()
}

export interface Location {
  /** The path under /dashboard, `/` for the overview. */
  readonly path: string
  readonly query: URLSearchParams
}

const read = (): Location => {
  const rest = window.location.pathname.slice(BASE.length).replace(/\/+$/, "")
  return { path: rest === "" ? "/" : rest, query: new URLSearchParams(window.location.search) }
}

/** The current location; re-renders on navigation and on the browser's back and forward. */
export const useLocation = (): Location => {
  const [location, setLocation] = useState(read)
  useEffect(() => {
    const update = () => setLocation(read())
    listeners.add(update)
    return () => void listeners.delete(update)
  }, [])
  return location
}

/** A query string with `changes` applied (empty values removed), for filters kept in the URL. */
export const queryWith = (query: URLSearchParams, changes: Record<string, string | undefined>): string => {
  const next = new URLSearchParams(query)
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === "") next.delete(key)
    else next.set(key, value)
  }
  const text = next.toString()
  return text === "" ? "" : `?${text}`
}

/** An in-app link: a real `<a href>` (open in a new tab works), navigating without a reload on a plain click. */
export const Link = ({ to, onClick, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) => {
  const href = `${BASE}${to === "/" ? "" : to}`
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(to)
  }
  return <a href={href} onClick={click} {...rest} />
}
