import type { ApiError } from "../api/api-error"

/** The API's message (and the field it names) in an alert the screen reader announces. */
export const ErrorBox = ({ error }: { error: ApiError | undefined }) =>
  error === undefined ? null : (
    <div className="error" role="alert">
      <strong>{error.status > 0 ? `Error ${error.status}` : "Error"}</strong>
      {error.field !== undefined ? <> in <code>{error.field}</code></> : null}: {error.message}
    </div>
  )
