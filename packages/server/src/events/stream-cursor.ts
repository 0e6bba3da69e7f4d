/**
 * A writer draws its event id (nextval) a moment before it has an xid (assigned
 * when it writes the row), so an id seen at time t is only declared final by the
 * xmax of a snapshot taken at least this long after t: a writer that took less
 * than a second between the two is then known to the snapshot. It delays only
 * when `sent` shrinks, never an event.
 */
const GRACE_MS = 1000
/** At most ten marks a second however often the stream polls (600 within MAX_LAG_MS). */
const MARK_SPACING_MS = 100
/**
 * The cap: a transaction left open elsewhere (idle in transaction) holds every
 * snapshot's xmin back and nothing settles. Past a minute, or past this many ids
 * above `settled`, the oldest marks settle anyway; an event of a writer still
 * open then, with an id below those marks, is not streamed (Last-Event-ID resume
 * from before it still finds it).
 */
const MAX_LAG_MS = 60_000
const MAX_SENT = 10_000

/** `max(id)` of the events a poll saw and when that poll was sent; `xmax` once a snapshot at least GRACE_MS later was taken. */
interface Mark {
  readonly at: number
  readonly maxId: number
  readonly xmax: number | undefined
}

/** What one poll statement saw, all under one snapshot. */
export interface StreamPoll {
  /** When the statement was sent (ms). */
  readonly at: number
  /** `pg_snapshot_xmin`: every transaction with an xid below it had ended. */
  readonly xmin: number
  /** `pg_snapshot_xmax`: the first xid not yet assigned. */
  readonly xmax: number
  /** `max(id)` of all events visible (0 when none). */
  readonly maxId: number
  /** Ids of the rows returned (and streamed), ascending. */
  readonly ids: ReadonlyArray<number>
  /** Whether the page was full: visible rows after the last one may not have been read yet. */
  readonly full: boolean
}

/**
 * Where an event stream stands. Ids commit out of order (a writer that drew id 61
 * can commit after the writers of 62-64), so "after the last id streamed" would
 * skip 61. Every row with id ≤ `settled` was streamed or needs no look; `sent`
 * are the ids above it already streamed, which the next poll leaves out.
 */
export interface StreamCursor {
  readonly settled: number
  readonly sent: ReadonlyArray<number>
  /** Ids ≤ final will never gain a row (mark proven, or forced by the cap). */
  readonly final: number
  readonly marks: ReadonlyArray<Mark>
}

export interface StreamAdvance {
  readonly cursor: StreamCursor
  /** Set when the cap settled marks not yet proven: how long settlement lagged and how many ids were held. */
  readonly forced: { readonly lagMs: number; readonly sent: number } | undefined
}

const start = (position: number): StreamCursor => ({ settled: position, sent: [], final: position, marks: [] })

/**
 * The cursor after a poll. A mark pairs a max(id) seen at `at` with the xmax of a
 * snapshot taken GRACE_MS later. A row with id ≤ maxId not yet visible when maxId
 * was seen belongs to a writer that had drawn its id by then, so had its xid before
 * that later snapshot: below its xmax. Once a snapshot's xmin reaches that xmax all
 * those writers have ended, their rows are visible to that very snapshot and its
 * poll read them: the mark is proven and ids ≤ maxId settle. `settled` never passes
 * the last row of a full page (rows after it are visible but unread).
 */
const advance = (cursor: StreamCursor, poll: StreamPoll): StreamAdvance => {
  let sent = [...cursor.sent, ...poll.ids]
  const marks: Array<Mark> = cursor.marks.map((m) =>
    m.xmax === undefined && poll.at >= m.at + GRACE_MS ? { ...m, xmax: poll.xmax } : m
  )
  const last = marks[marks.length - 1]
  if (poll.maxId > Math.max(cursor.final, last?.maxId ?? 0) && (last === undefined || poll.at >= last.at + MARK_SPACING_MS)) {
    marks.push({ at: poll.at, maxId: poll.maxId, xmax: undefined })
  }
  let final = cursor.final
  while (marks.length > 0 && marks[0]!.xmax !== undefined && marks[0]!.xmax <= poll.xmin) {
    final = Math.max(final, marks.shift()!.maxId)
  }
  const seen = poll.full && poll.ids.length > 0 ? poll.ids[poll.ids.length - 1]! : Infinity
  let settled = cursor.settled
  const settle = () => {
    const next = Math.min(final, seen)
    if (next > settled) {
      settled = next
      sent = sent.filter((id) => id > settled)
    }
  }
  settle()
  let forced: StreamAdvance["forced"]
  while (
    marks.length > 0 && settled < seen && (poll.at - marks[0]!.at > MAX_LAG_MS || sent.length > MAX_SENT)
  ) {
    forced ??= { lagMs: poll.at - marks[0]!.at, sent: sent.length }
    final = Math.max(final, marks.shift()!.maxId)
    settle()
  }
  return { cursor: { settled, sent, final, marks }, forced }
}

/** The per-connection position of `GET /platform/v1/events/stream`: `start` at a row id, `advance` after each poll. */
export const StreamCursor = { start, advance } as const
