const format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" })

/** A time in the browser's zone; the exact ISO time on hover (and for assistive technology). */
export const Time = ({ iso, empty = "—" }: { iso: string | null | undefined; empty?: string }) => {
  if (iso === null || iso === undefined) return <span className="muted">{empty}</span>
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>
  return <time dateTime={iso} title={date.toISOString()}>{format.format(date)}</time>
}
