import { readFile } from "node:fs/promises"
import { extname } from "node:path"
import { usage } from "../../context.js"

/** A recipient as a file gives it, with the line it came from (CSV) or its position (JSON), for error messages. */
export interface FileRecipient {
  readonly to: string
  readonly components?: ReadonlyArray<unknown>
  readonly where: string
}

/** Splits one CSV line into fields (RFC 4180 quoting: `"a,b"`, `""` for a quote). */
const csvFields = (line: string): string[] => {
  const out: string[] = []
  let field = ""
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quoted) {
      if (ch === "\"" && line[i + 1] === "\"") {
        field += "\""
        i++
      } else if (ch === "\"") quoted = false
      else field += ch
    } else if (ch === "\"") quoted = true
    else if (ch === ",") {
      out.push(field)
      field = ""
    } else field += ch
  }
  out.push(field)
  return out.map((f) => f.trim())
}

const components = (text: string, where: string): ReadonlyArray<unknown> | undefined => {
  if (text === "") return undefined
  try {
    const parsed = JSON.parse(text) as unknown
    if (Array.isArray(parsed)) return parsed
  } catch {
    // reported below
  }
  throw usage(`${where}: components must be a JSON array, e.g. [{"type":"body","parameters":[...]}]`)
}

/**
 * CSV: one recipient a line; a first line naming the columns (`to`, optional `components` holding a JSON array) is
 * a header, otherwise the first column is `to`. Blank lines are skipped.
 */
export const parseCsv = (text: string, file: string): FileRecipient[] => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  const first = csvFields(lines[0] ?? "").map((h) => h.toLowerCase())
  const hasHeader = first.includes("to")
  const toAt = hasHeader ? first.indexOf("to") : 0
  const componentsAt = hasHeader ? first.indexOf("components") : -1
  const out: FileRecipient[] = []
  lines.forEach((line, i) => {
    if ((hasHeader && i === 0) || line.trim() === "") return
    const where = `${file} line ${i + 1}`
    const fields = csvFields(line)
    const to = fields[toAt] ?? ""
    if (to === "") throw usage(`${where}: no recipient in the ${hasHeader ? "to" : "first"} column`)
    const c = componentsAt >= 0 ? components(fields[componentsAt] ?? "", where) : undefined
    out.push({ to, ...(c !== undefined ? { components: c } : {}), where })
  })
  return out
}

/** JSON: an array of numbers as strings or `{to, components?}` objects, or `{recipients: [...]}` as the API takes it. */
export const parseJson = (text: string, file: string): FileRecipient[] => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    throw usage(`${file} is not valid JSON: ${(e as Error).message}`)
  }
  const list = Array.isArray(parsed)
    ? parsed
    : parsed !== null && typeof parsed === "object" && Array.isArray((parsed as { recipients?: unknown }).recipients)
    ? (parsed as { recipients: unknown[] }).recipients
    : undefined
  if (list === undefined) throw usage(`${file} must hold a JSON array of recipients or {"recipients": [...]}`)
  return list.map((item, i) => {
    const where = `${file} entry ${i + 1}`
    if (typeof item === "string") return { to: item, where }
    if (item !== null && typeof item === "object" && typeof (item as { to?: unknown }).to === "string") {
      const { to, components: c } = item as { to: string; components?: unknown }
      if (c !== undefined && !Array.isArray(c)) throw usage(`${where}: components must be a JSON array`)
      return { to, ...(c !== undefined ? { components: c as ReadonlyArray<unknown> } : {}), where }
    }
    throw usage(`${where}: must be a recipient string or an object with to`)
  })
}

/** Reads a CSV or JSON recipients file (by extension; `.json` is JSON, anything else CSV). */
export const readRecipients = async (file: string): Promise<FileRecipient[]> => {
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch (e) {
    throw usage(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  const recipients = extname(file).toLowerCase() === ".json" ? parseJson(text, file) : parseCsv(text, file)
  if (recipients.length === 0) throw usage(`${file} holds no recipients`)
  return recipients
}
