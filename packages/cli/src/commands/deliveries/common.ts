import { EVENT_TYPES, type EventDelivery, type RawForwardDelivery } from "@platform/sdk"
import type { Context } from "../../context.js"
import type { Column } from "../../output.js"

/**
 * A note for an --event-type this CLI does not know, or undefined. The API filters by it as given (an unknown value
 * is an empty page, not a 422, and a newer server may know more types), so a typo would otherwise read as "nothing yet".
 */
export const unknownEventTypeNote = (ctx: Context, type: string | undefined): string | undefined =>
  type === undefined || (EVENT_TYPES as ReadonlyArray<string>).includes(type)
    ? undefined
    : ctx.out.ce.yellow(`"${type}" is not an event type this CLI knows (${EVENT_TYPES.join(", ")}); no delivery may match it.`)

/** A delivery status, coloured. */
export const status = (ctx: Context, s: string): string =>
  s === "delivered" ? ctx.out.c.green(s) : s === "failed" ? ctx.out.c.red(s) : ctx.out.c.yellow(s)

/** The receiver's time for the last attempt (latency_ms); for a row without it, creation to delivery when both are known. */
export const latencyMs = (d: { readonly created_at?: string | undefined; readonly delivered_at?: string | null | undefined; readonly latency_ms?: unknown }): number | undefined => {
  if (typeof d.latency_ms === "number") return d.latency_ms
  if (!d.created_at || !d.delivered_at) return undefined
  return Math.max(0, Date.parse(d.delivered_at) - Date.parse(d.created_at))
}

/** Minutes from attempt n (the index) to attempt n + 1: SPEC §6.3, as `RETRY_DELAYS_MINUTES` of @platform/shared. */
const RETRY_DELAYS_MINUTES = [0, 1, 5, 30, 120] as const

/**
 * When the delivery's last attempt happened: last_attempt_at, whatever the attempt led to (delivered, a retry, a final
 * failure). From a server without that field: a delivered one at delivered_at; one that failed and waits for its next
 * attempt, the schedule's delay before next_retry_at; otherwise the time it is printed (a final failure, whose row
 * kept no attempt time there).
 */
export const attemptTime = (d: { readonly status: string; readonly attempts: number; readonly delivered_at?: string | null | undefined; readonly next_retry_at?: string | null | undefined; readonly last_attempt_at?: string | null | undefined }): Date => {
  if (d.last_attempt_at) return new Date(d.last_attempt_at)
  if (d.status === "delivered" && d.delivered_at) return new Date(d.delivered_at)
  const delay = RETRY_DELAYS_MINUTES[d.attempts]
  if (d.status === "pending" && d.attempts > 0 && d.next_retry_at && delay !== undefined) return new Date(Date.parse(d.next_retry_at) - delay * 60_000)
  return new Date()
}

/** Why the last attempt failed ("HTTP 503", "connection refused (ECONNREFUSED)", ...), red; "-" when none did. */
export const lastError = (ctx: Context, d: { readonly last_error?: string | null | undefined }): string =>
  d.last_error == null ? "-" : ctx.out.c.red(d.last_error)

export const nativeColumns = (ctx: Context): ReadonlyArray<Column<EventDelivery>> => [
  { header: "id", value: (d) => String(d.id) },
  { header: "status", value: (d) => status(ctx, d.status) },
  { header: "event", value: (d) => d.event_type },
  { header: "sub", value: (d) => String(d.subscription_id) },
  { header: "attempts", value: (d) => String(d.attempts) },
  { header: "http", value: (d) => (d.response_status == null ? "-" : String(d.response_status)) },
  { header: "last error", value: (d) => lastError(ctx, d) },
  { header: "created", value: (d) => d.created_at ?? "-" },
  { header: "event id", value: (d) => d.event_id }
]

export const rawColumns = (ctx: Context): ReadonlyArray<Column<RawForwardDelivery>> => [
  { header: "id", value: (d) => String(d.id) },
  { header: "status", value: (d) => status(ctx, d.status) },
  { header: "channel", value: (d) => String(d.platform_channel_id) },
  { header: "attempts", value: (d) => String(d.attempts) },
  { header: "http", value: (d) => (d.response_status == null ? "-" : String(d.response_status)) },
  { header: "last error", value: (d) => lastError(ctx, d) },
  { header: "created", value: (d) => d.created_at }
]

/** Prints one delivery with its fields (and the envelope when fetched). */
export const printDelivery = (ctx: Context, d: EventDelivery, verb?: string): void =>
  ctx.out.result(d, () => {
    if (verb) ctx.out.line(`${ctx.out.c.green("✓")} ${verb} delivery ${ctx.out.c.bold(String(d.id))}`)
    const { envelope, ...rest } = d
    ctx.out.fields(Object.entries({ ...rest, status: status(ctx, d.status) }))
    if (envelope !== undefined) {
      ctx.out.line()
      ctx.out.line(JSON.stringify(envelope, null, 2))
    }
  })
