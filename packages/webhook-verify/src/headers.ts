/** Request headers: a Fetch `Headers` object or a plain record such as Node's `req.headers`. */
export type HeadersLike =
  | { get(name: string): string | null }
  | { readonly [name: string]: string | ReadonlyArray<string> | undefined }

/** Reads a header case-insensitively from either kind of header container. */
export function getHeader(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers.get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined
  }
  const record = headers as { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  let value = record[name]
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === name) {
        value = record[key]
        break
      }
    }
  }
  return typeof value === "string" || value === undefined ? value : value[0]
}
