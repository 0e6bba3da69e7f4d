import { useEffect, useRef } from "react"

/** How often a live broadcast's page asks again. */
export const POLL_MS = 2000

/** Calls `tick` every 2 s while `active`; stops when it turns false or the page goes. */
export const usePolling = (active: boolean, tick: () => void) => {
  useEffect(() => {
    if (!active) return
    const timer = window.setInterval(tick, POLL_MS)
    return () => window.clearInterval(timer)
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
