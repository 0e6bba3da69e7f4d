import { useCallback, useEffect, useRef, useState } from "react"
import type { ApiError } from "./api/api-error"

export interface Resource<A> {
  readonly data: A | undefined
  readonly error: ApiError | undefined
  readonly loading: boolean
  readonly reload: () => void
}

/**
 * Loads `load()` now and whenever `key` changes (a page's filters); an answer to an
 * older key is dropped, so a slow first page never overwrites a later one.
 */
export const useResource = <A>(load: () => Promise<A>, key: string): Resource<A> => {
  const [state, setState] = useState<{ data?: A; error?: ApiError; loading: boolean }>({ loading: true })
  const [nonce, setNonce] = useState(0)
  const latest = useRef(0)
  useEffect(() => {
    const id = ++latest.current
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => id === latest.current && setState({ data, loading: false }),
      (error: ApiError) => id === latest.current && setState({ error, loading: false })
    )
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, nonce])
  const reload = useCallback(() => setNonce((n) => n + 1), [])
  return { data: state.data, error: state.error, loading: state.loading, reload }
}
