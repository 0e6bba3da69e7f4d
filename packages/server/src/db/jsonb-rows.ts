const withoutNul = (_k: string, v: unknown) =>
  typeof v === "string" && v.includes("\u0000") ? v.replaceAll("\u0000", "\uFFFD") : v

/**
 * Postgres rejects U+0000 inside jsonb text; Meta never means it, so it becomes
 * U+FFFD. JSON writes U+0000 as the escape `\u0000`, so text without that
 * sequence has none (the replacer, slow on every value, runs only otherwise).
 */
export const jsonbRows = (rows: ReadonlyArray<unknown>): string => {
  const text = JSON.stringify(rows)
  return text.includes("\\u0000") ? JSON.stringify(rows, withoutNul) : text
}
