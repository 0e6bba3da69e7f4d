import type { ReactNode } from "react"
import { get } from "../../api/client"
import { ErrorBox } from "../../components/error-box"
import { Pager } from "../../components/pager"
import { Empty, Loading } from "../../components/states"
import type { Location } from "../../router"
import { useResource } from "../../use-resource"
import { FilterForm, type FilterSpec, queryOf } from "./filter-form"

/** A cursor page of a dashboard read route (DESIGN §5 "Lists"). */
interface ListPage<Row> {
  readonly data: ReadonlyArray<Row>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/**
 * A list page over one of the dashboard's read routes (messages, conversations,
 * contacts): its heading, the route's filters and the cursor in the URL, a refresh,
 * loading, empty and error states, the rows in a table and the pager both ways.
 */
export const FilteredList = <Row extends { readonly id: number }>({ location, title, path, filters, what, empty, caption, head, row }: {
  location: Location
  title: string
  /** The route, e.g. `/platform/dashboard/messages`. */
  path: string
  filters: ReadonlyArray<FilterSpec>
  /** The rows' name in the loading state, e.g. "messages". */
  what: string
  empty: ReactNode
  caption: string
  head: ReadonlyArray<string>
  row: (r: Row) => ReactNode
}) => {
  const list = useResource(() => get<ListPage<Row>>(path, queryOf(location, filters)), location.query.toString())
  const page = list.data
  return (
    <>
      <h1>{title}</h1>
      <FilterForm location={location} label={`Filter ${what}`} filters={filters} error={list.error} />
      <div className="toolbar"><button type="button" onClick={list.reload}>Refresh</button></div>
      <ErrorBox error={list.error} />
      {list.loading && page === undefined ? <Loading what={what} /> : null}
      {page?.data.length === 0 ? <Empty>{empty}</Empty> : null}
      {page !== undefined && page.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">{caption}</caption>
            <thead><tr>{head.map((h) => <th key={h}>{h}</th>)}</tr></thead>
            <tbody>{page.data.map(row)}</tbody>
          </table>
        </div>
      ) : null}
      {page ? <Pager location={location} nextCursor={page.next_cursor} hasMore={page.has_more} rows={page.data} /> : null}
    </>
  )
}
