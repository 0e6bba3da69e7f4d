import type { DeliveryKind } from "../telemetry/metrics.js"
import type { ManualSpan, ManualSpans } from "../telemetry/tracing.js"
import type { PostOutcome } from "./transport.js"

/**
 * The span of one webhook POST (tracing on): its own trace, linked to the span that
 * caused the event (`traceParent`, stored with the event: the inbound POST, the API
 * request), since an attempt may come minutes or hours later and from another process.
 */
export const startAttemptSpan = (
  spans: ManualSpans | undefined,
  kind: DeliveryKind,
  traceParent: string | null | undefined,
  attributes: Readonly<Record<string, unknown>>
): ManualSpan | undefined =>
  spans?.start(kind === "normalized" ? "Deliveries.attempt" : "RawForward.attempt", {
    kind: "client",
    links: [traceParent],
    attributes: { "http.request.method": "POST", ...attributes }
  })

/** Ends an attempt's span with its answer: an error unless 2xx. */
export const endAttemptSpan = (span: ManualSpan | undefined, outcome: PostOutcome) => {
  if (span === undefined) return
  if (outcome._tag === "Answered") {
    span.attribute("http.response.status_code", outcome.status)
    span.end(outcome.status >= 200 && outcome.status < 300 ? undefined : `HTTP ${outcome.status}`)
  } else span.end(outcome.reason)
}
