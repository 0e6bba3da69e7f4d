import { type UpstreamErrorEnvelope, upstreamHint } from "@platform/shared"
import { classifyMetaCode } from "../upstream/errors.js"

/*
 * Outbound message statuses only move forward: sent < delivered < read, and a
 * later value Meta invents (`played` for voice notes, `deleted`, ...) ranks just
 * above read, so it is kept and a late read or delivered never overwrites it.
 * failed is final. Meta delivers callbacks at least once and in no particular
 * order, so the comparison happens in the UPDATE itself (never read-then-write).
 */
export const STATUS_RANK = {
  accepted: 5,
  pending: 5,
  sent: 10,
  delivered: 20,
  read: 30,
  failed: 100
} as const

/** Rank of a status value not in `STATUS_RANK` (future values such as `played`). */
export const UNKNOWN_STATUS_RANK = 35

/** Rank of a status as a JS number; null (never reported) ranks lowest. */
export const statusRank = (status: string | null | undefined): number =>
  status === null || status === undefined
    ? 0
    : (STATUS_RANK as Record<string, number>)[status] ?? UNKNOWN_STATUS_RANK

/** The same ranking as a SQL expression over `column` (kept in step with `statusRank`). */
export const statusRankSql = (column: string): string =>
  `(case when ${column} is null then 0 ${
    Object.entries(STATUS_RANK).map(([status, rank]) => `when ${column} = '${status}' then ${rank}`).join(" ")
  } else ${UNKNOWN_STATUS_RANK} end)`

/** Whether a callback with `next` changes a message currently at `current`. */
export const statusAdvances = (current: string | null, next: string): boolean => statusRank(next) > statusRank(current)

/** The status callbacks that become events; others (sent, unknown values) only update the row. */
export const STATUS_EVENTS: Readonly<Record<string, "message.delivered" | "message.read" | "message.failed">> = {
  delivered: "message.delivered",
  read: "message.read",
  failed: "message.failed"
}

/*
 * A status callback for an upstream id no message carries yet is parked (table
 * parked_statuses) instead of dropped: Meta can report `delivered`/`read` before
 * the send that caused them has written its row. The send's record statement
 * applies and deletes the parked statuses of its id; the sweep applies those a
 * concurrent send missed and drops the ones older than this.
 */
export const PARKED_STATUS_TTL_MINUTES = 10

/**
 * The upstream error envelope of `message.failed` (same shape as the send 502
 * body, SPEC §7) from the first error of a failed status callback; `error` is
 * the same classification of the code (`undeliverable`, `reengagement_required`,
 * ...), so a client handles a refused send and a failed delivery alike.
 */
export const failedStatusEnvelope = (errors: unknown): UpstreamErrorEnvelope => {
  // As the callback came: anything but the documented strings and integer is left out.
  const e = Array.isArray(errors) && typeof errors[0] === "object" && errors[0] !== null ? errors[0] as Record<string, unknown> : {}
  const text = (u: unknown) => (typeof u === "string" ? u : null)
  const details = typeof e.error_data === "object" && e.error_data !== null ? (e.error_data as Record<string, unknown>).details : undefined
  const title = text(e.title)
  const message = text(details) ?? text(e.message) ?? title ?? "The upstream reported the message as failed"
  const code = typeof e.code === "number" && Number.isInteger(e.code) ? e.code : null
  const hint = upstreamHint(code)
  return {
    error: classifyMetaCode(code, null),
    meta_code: code,
    meta_subcode: null,
    meta_title: title,
    message,
    fbtrace_id: null,
    ...(hint === undefined ? {} : { hint })
  }
}
