/*
 * Postgres refuses two things JSON can carry: U+0000 inside jsonb text, and a lone UTF-16
 * surrogate (the escape `\ud800` without its pair: "invalid input syntax for type json").
 * Meta never means either, and a row that cannot be written made its whole POST a 500 that
 * Meta retried for days; both become U+FFFD, in values and in keys.
 */
const UNSTORABLE = /\u0000|\p{Cs}/gu

const clean = (s: string) => s.replace(UNSTORABLE, "\uFFFD")

/** Values and keys cleaned (JSON.stringify calls it for every value, keys included through their objects). */
const storable = (_key: string, value: unknown): unknown => {
  if (typeof value === "string") return clean(value)
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  let copy: Record<string, unknown> | undefined
  for (const key of Object.keys(value)) {
    const cleaned = clean(key)
    if (cleaned === key) continue
    copy ??= { ...value }
    delete copy[key]
    copy[cleaned] = (value as Record<string, unknown>)[key]
  }
  return copy ?? value
}

/**
 * The rows as jsonb text Postgres takes. JSON.stringify writes U+0000 as `\u0000` and a lone
 * surrogate as `\udXXX`, and a surrogate pair as its character: text without those escapes
 * holds neither, so the replacer (slow on every value) runs only otherwise.
 */
export const jsonbRows = (rows: ReadonlyArray<unknown>): string => {
  const text = JSON.stringify(rows)
  return /\\u(?:0000|d[89a-f])/i.test(text) ? JSON.stringify(rows, storable) : text
}
