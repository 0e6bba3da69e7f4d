import { useState } from "react"
import type { ApiError } from "./api/api-error"

/**
 * A form's submission: `busy` while its request runs (the submit button is disabled), and
 * the API's error when it fails, shown by the form's fields and error box until the next
 * success clears it.
 */
export const useSubmit = () => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  const run = async (action: () => Promise<void>) => {
    setBusy(true)
    try {
      await action()
      setError(undefined)
    } catch (e) {
      setError(e as ApiError)
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, run } as const
}
