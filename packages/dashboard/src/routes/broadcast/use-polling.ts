import { useEffect, useRef } from "react"

/** How often a live broadcast's page asks again. */
export const POLL_MS = 2000

/**
 * Calls `tick` every 2 s while `active` and the tab is visible (a scheduled broadcast left
 * open in a background tab asks nothing), at once when the tab shows again; stops when
 * `active` turns false or the page goes.
 */
export const usePolling = (active: boolean, tick: () => void) => {
  useEffect(() => {
    if (!active) return
    const timer = window.setInterval(() => document.hidden || tick(), POLL_MS)
    const shown = () => document.hidden || tick()
    document.addEventListener("visibilitychange", shown)
    return () => {
      window.clearInterval(timer)
      document.removeEventListener("visibilitychange", shown)
    }
  }, [active, tick])
}

/**
 * Calls `settle` once when `active` turns false after being true: what was read in the last
 * tick may predate the change (the broadcast answered completed, its counts from just before).
 */
export const useSettled = (active: boolean, settle: () => void) => {
  const was = useRef(active)
  useEffect(() => {
    if (was.current && !active) settle()
    was.current = active
  }, [active, settle])
}
