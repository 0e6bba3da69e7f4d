/**
 * An error answer of the API, reduced to what a page shows: the API's own message and,
 * for a 422, the field it is about (DESIGN §5 error bodies).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field: string | undefined,
    readonly code: string | undefined,
    readonly body: unknown
  ) {
    super(message)
  }
}

interface Issue {
  readonly loc?: ReadonlyArray<string | number>
  readonly msg?: string
}

/** `["body","expires_at"]` → `expires_at`; the location word is not part of the field's name. */
const fieldOf = (loc: ReadonlyArray<string | number> | undefined) =>
  loc === undefined ? undefined : loc.filter((part, i) => !(i === 0 && ["body", "query", "path", "header"].includes(String(part)))).join(".") || undefined

/** The ApiError of an answer's status and parsed body (422 issues, coded errors, 429 texts). */
export const apiErrorOf = (status: number, body: unknown): ApiError => {
  const detail = (body as { detail?: unknown } | null)?.detail
  if (Array.isArray(detail) && detail.length > 0) {
    const issues = detail as ReadonlyArray<Issue>
    const message = issues.map((i) => (fieldOf(i.loc) ? `${fieldOf(i.loc)}: ${i.msg ?? "invalid"}` : i.msg ?? "invalid")).join("; ")
    return new ApiError(status, message, fieldOf(issues[0]!.loc), "validation_error", body)
  }
  if (typeof detail === "object" && detail !== null) {
    const coded = detail as { code?: string; message?: string }
    return new ApiError(status, coded.message ?? `HTTP ${status}`, undefined, coded.code, body)
  }
  if (typeof detail === "string") return new ApiError(status, detail, undefined, undefined, body)
  const message = (body as { message?: unknown } | null)?.message
  return new ApiError(status, typeof message === "string" ? message : `The server answered HTTP ${status}`, undefined, undefined, body)
}
