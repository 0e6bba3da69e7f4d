import type { RowRecipient } from "../../api/broadcasts"
import { type BodyVariables, bodyComponents } from "../../api/template-variables"

/** Cells with the empty ones at the end dropped: `15550001, Ana,` gives one variable. */
const trimmed = (cells: ReadonlyArray<string>) => {
  const out = cells.map((c) => c.trim())
  while (out.length > 0 && out[out.length - 1] === "") out.pop()
  return out
}

const recipient = (row: number, to: string, values: ReadonlyArray<string>, variables: BodyVariables): RowRecipient => {
  const components = bodyComponents(variables, values)
  return components === undefined ? { row, to } : { row, to, components }
}

/**
 * Pasted recipients: one a line, the number first, then the line's body variables in
 * placeholder order, separated by commas or tabs (`+15550001111, Ana`). Blank lines are skipped.
 */
export const pastedRecipients = (text: string, variables: BodyVariables): ReadonlyArray<RowRecipient> =>
  text.split(/\r?\n/).flatMap((line, i) => {
    const cells = trimmed(line.split(/[,\t]/))
    return cells.length === 0 ? [] : [recipient(i + 1, cells[0]!, cells.slice(1), variables)]
  })

/** Column names taken for the number when a CSV file has a header row. */
const NUMBER_COLUMNS = ["to", "phone", "phone_number", "number", "wa_id", "recipient"]

const headerName = (cell: string) => cell.trim().toLowerCase().replace(/^\{\{\s*|\s*\}\}$/g, "")

/**
 * A CSV file's rows (as the CSV parser split them) as recipients. A first row whose
 * first cell has no digit is a header: its `to` (or `phone`, `number`…) column holds the
 * number, and columns named after the template's placeholders (`1`, `{{1}}`, `first_name`)
 * its variables; without such names the other columns are the variables in order.
 * Without a header the first column is the number. Rows count from 1, the header included.
 */
export const csvRecipients = (rows: ReadonlyArray<ReadonlyArray<string>>, variables: BodyVariables): ReadonlyArray<RowRecipient> => {
  const first = rows[0] ?? []
  const header = first.length > 0 && !/\d/.test(first[0] ?? "")
  const names = header ? first.map(headerName) : []
  const numberAt = header ? Math.max(0, names.findIndex((n) => NUMBER_COLUMNS.includes(n))) : 0
  const byName = variables.names.map((n) => names.indexOf(n.toLowerCase()))
  const named = header && byName.length > 0 && byName.every((i) => i >= 0)
  return rows.flatMap((cells, i) => {
    if (header && i === 0) return []
    if (trimmed(cells).length === 0) return []
    const values = trimmed(named ? byName.map((c) => cells[c] ?? "") : cells.filter((_, c) => c !== numberAt))
    return [recipient(i + 1, (cells[numberAt] ?? "").trim(), values, variables)]
  })
}

/** Reads a CSV file with papaparse, loaded only when a file is chosen (it stays out of the first bundle). */
export const readCsv = async (file: File): Promise<ReadonlyArray<ReadonlyArray<string>>> => {
  const { default: Papa } = await import("papaparse")
  const parsed = Papa.parse<Array<string>>((await file.text()).replace(/^\uFEFF/, ""), { skipEmptyLines: false })
  return parsed.data
}
