import { ApiError } from "../../api/api-error"

/*
 * A 422 names every field it refuses (`detail[].loc`); the shared ApiError keeps the first.
 * The builder shows each issue next to its own input, so it reads them all here.
 */

export interface FieldIssue {
  readonly field: string
  readonly message: string
}

export const issuesOf = (error: ApiError | undefined): ReadonlyArray<FieldIssue> => {
  const detail = (error?.body as { detail?: unknown } | undefined)?.detail
  if (!Array.isArray(detail)) return error?.field !== undefined ? [{ field: error.field, message: error.message }] : []
  return detail.map((d: { loc?: ReadonlyArray<string | number>; msg?: string }) => ({
    field: (d.loc ?? []).filter((part, i) => !(i === 0 && ["body", "query", "path"].includes(String(part)))).join("."),
    message: d.msg ?? "invalid"
  }))
}

/** The error of one field, shaped for `Field` (which marks its input when `error.field` is its name). */
export const errorAt = (error: ApiError | undefined, field: string): ApiError | undefined => {
  const found = issuesOf(error).find((i) => i.field === field)
  return found === undefined ? undefined : new ApiError(error!.status, found.message, field, "validation_error", undefined)
}

/** The issues at or under `prefix` that no input of the form shows itself (`exclude`). */
export const issuesUnder = (error: ApiError | undefined, prefix: string, exclude: ReadonlyArray<string> = []) =>
  issuesOf(error).filter((i) => (i.field === prefix || i.field.startsWith(`${prefix}.`)) && !exclude.includes(i.field))
