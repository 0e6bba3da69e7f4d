import { useEffect } from "react"

/** Reloads every `ms` while `waiting` (a template under review): the status moves by an upstream callback. */
export const usePollWhile = (waiting: boolean, reload: () => void, stamp: unknown, ms = 1500) => {
  useEffect(() => {
    if (!waiting) return
    const timer = setTimeout(reload, ms)
    return () => clearTimeout(timer)
  }, [waiting, reload, stamp, ms])
}
