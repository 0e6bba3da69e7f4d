import type { FormEvent } from "react"
import type { ApiError } from "../../api/api-error"
import { Field, SelectField } from "../../components/field"
import { Link, type Location, navigate, queryWith } from "../../router"

/** One filter of a list: a text box, a choice, or a date-time (kept in the URL as the ISO time the API takes). */
export interface FilterSpec {
  readonly name: string
  readonly label: string
  readonly kind?: "text" | "number" | "select" | "datetime"
  readonly options?: ReadonlyArray<string>
  readonly placeholder?: string
}

const pad = (n: number) => String(n).padStart(2, "0")

/** ISO → the `datetime-local` value of the same instant in the browser's zone (minutes); a value that is not a date is shown as is. */
const localOf = (iso: string | null) => {
  if (iso === null || iso === "") return ""
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ""
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

const isoOf = (local: string) => {
  if (local === "") return undefined
  const d = new Date(local)
  return Number.isNaN(d.getTime()) ? local : d.toISOString()
}

/**
 * A list's filters, kept in the query string (a filtered list can be bookmarked, shared
 * and reloaded); applying them starts again from the newest page. The field the API's
 * 422 names is marked invalid.
 */
export const FilterForm = ({ location, label, filters, error }: {
  location: Location
  label: string
  filters: ReadonlyArray<FilterSpec>
  error: ApiError | undefined
}) => {
  const q = location.query
  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const changes: Record<string, string | undefined> = { after: undefined, before: undefined }
    for (const f of filters) {
      const value = String(form.get(f.name) ?? "").trim()
      changes[f.name] = f.kind === "datetime" ? isoOf(value) : value
    }
    navigate(`${location.path}${queryWith(q, changes)}`)
  }
  const active = filters.some((f) => q.has(f.name))
  return (
    <form className="filters" onSubmit={apply} aria-label={label} key={q.toString()}>
      {filters.map((f) =>
        f.kind === "select" ? (
          <SelectField key={f.name} label={f.label} name={f.name} defaultValue={q.get(f.name) ?? ""}>
            <option value="">any</option>
            {(f.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
            {q.get(f.name) !== null && !(f.options ?? []).includes(q.get(f.name)!) && q.get(f.name) !== "" ? <option value={q.get(f.name)!}>{q.get(f.name)}</option> : null}
          </SelectField>
        ) : f.kind === "datetime" ? (
          <Field key={f.name} label={f.label} name={f.name} type="datetime-local" error={error} defaultValue={localOf(q.get(f.name))} />
        ) : (
          <Field
            key={f.name}
            label={f.label}
            name={f.name}
            error={error}
            inputMode={f.kind === "number" ? "numeric" : undefined}
            placeholder={f.placeholder}
            defaultValue={q.get(f.name) ?? ""}
          />
        ))}
      <button type="submit">Apply filters</button>
      {active ? <Link to={location.path} className="clear">Clear filters</Link> : null}
    </form>
  )
}

/** The API query of a list page: its filters and cursors, from the URL. */
export const queryOf = (location: Location, filters: ReadonlyArray<FilterSpec>) =>
  Object.fromEntries([...filters.map((f) => f.name), "after", "before", "limit"].map((k) => [k, location.query.get(k) ?? undefined]))
