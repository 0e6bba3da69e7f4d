import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"

/**
 * The process's metrics, in Prometheus text format (prom-client). Counters and
 * histograms are updated by plain calls on the hot paths (the inbound front route,
 * the dispatcher's POST callbacks run no fiber of their own), which a client library
 * does in a few hundred nanoseconds; Effect's Metric API would need an effect (or its
 * unsafe internals) at each of those places. The gauges of queues, pools and
 * broadcasts are set at scrape time (scrape.ts). One registry per process, like the
 * process it describes: its own, so that no library's metrics mix into ours.
 */
export const registry = new Registry()

// Node's own: CPU, memory, heap spaces, GC, event-loop lag, handles. Their standard
// names (process_*, nodejs_*) are kept so that stock Node.js dashboards work.
collectDefaultMetrics({ register: registry })

const registers = [registry]

// Seconds. A webhook POST, an upstream call: from a millisecond to the 10 s deadlines.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
// Event commit to the receiver's 2xx: from milliseconds to the retries of SPEC §6.3 (hours).
const DELIVERY_LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 43200]

/**
 * Each labelled series once: prom-client hashes the label object on every update,
 * a Map lookup of the joined values is cheaper on paths taken thousands of times a second.
 */
const children = <C>(make: (...values: Array<string>) => C) => {
  const cache = new Map<string, C>()
  return (...values: Array<string>): C => {
    const key = values.join("\u0000")
    let child = cache.get(key)
    if (child === undefined) {
      child = make(...values)
      cache.set(key, child)
    }
    return child
  }
}

// HTTP

export const httpRequests = new Counter({
  name: "platform_http_requests_total",
  help: "HTTP requests answered, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  registers
})

export const httpRequestDuration = new Histogram({
  name: "platform_http_request_duration_seconds",
  help: "Time from a request's arrival to its response head, by method and route template",
  labelNames: ["method", "route"] as const,
  buckets: LATENCY_BUCKETS,
  registers
})

const httpCount = children((method, route, status) => httpRequests.labels(method!, route!, status!))
const httpDuration = children((method, route) => httpRequestDuration.labels(method!, route!))

/** One answered request: `route` is a template (`/platform/v1/messages/{id}`), never a raw path. */
export const observeHttpRequest = (method: string, route: string, status: number, seconds: number) => {
  httpCount(method, route, String(status)).inc()
  httpDuration(method, route).observe(seconds)
}

// Inbound

/** What became of a POST to /webhook/incoming. */
export type InboundOutcome =
  /** New messages stored. */
  | "stored"
  /** Only messages already stored (Meta's retry of a POST we answered). */
  | "duplicate"
  /** Status, template or quality updates, no message. */
  | "updated"
  /** Status callbacks for sends not recorded yet, parked (inbound/parked.ts). */
  | "parked"
  | "quota_exceeded"
  /** No channel of ours, or a shape we do not know: 200 `ignored`. */
  | "ignored"
  | "bad_signature"
  | "invalid_body"
  /** A 500 (Meta retries). */
  | "error"

export const inboundWebhooks = new Counter({
  name: "platform_inbound_webhooks_total",
  help: "POSTs to /webhook/incoming by outcome",
  labelNames: ["outcome"] as const,
  registers
})
const inboundCount = children((outcome) => inboundWebhooks.labels(outcome!))

export const countInbound = (outcome: InboundOutcome) => inboundCount(outcome).inc()

// Events

export const eventsWritten = new Counter({
  name: "platform_events_written_total",
  help: "Events written to the outbox, by type",
  labelNames: ["event_type"] as const,
  registers
})
const eventCount = children((type) => eventsWritten.labels(type!))

/** Counts events written: a type, or a `{type: n}` object as statements return it. */
export const countEvents = (types: string | Readonly<Record<string, number>> | null | undefined, n = 1) => {
  if (types === null || types === undefined) return
  if (typeof types === "string") return eventCount(types).inc(n)
  for (const type in types) eventCount(type).inc(types[type])
}

// Deliveries

/** `normalized`: event deliveries to subscriptions; `raw_forward`: a channel's raw forward. */
export type DeliveryKind = "normalized" | "raw_forward"

export const deliveryAttempts = new Counter({
  name: "platform_delivery_attempts_total",
  help: "Webhook POSTs attempted, by kind and result (2xx, 3xx, 4xx, 5xx, no_answer)",
  labelNames: ["kind", "result"] as const,
  registers
})

export const deliveryAttemptDuration = new Histogram({
  name: "platform_delivery_attempt_duration_seconds",
  help: "Duration of one webhook POST, by kind",
  labelNames: ["kind"] as const,
  buckets: LATENCY_BUCKETS,
  registers
})

export const deliveries = new Counter({
  name: "platform_deliveries_total",
  help: "Webhook attempts by what they led to: delivered, retry_scheduled or failed (the last attempt failed)",
  labelNames: ["kind", "outcome"] as const,
  registers
})

export const deliveryLatency = new Histogram({
  name: "platform_delivery_latency_seconds",
  help: "From the event's commit to its receiver's 2xx (normalized deliveries, retries included; a buffered batch from its assembly)",
  buckets: DELIVERY_LATENCY_BUCKETS,
  registers
})

const attemptCount = children((kind, result) => deliveryAttempts.labels(kind!, result!))
const attemptDuration = children((kind) => deliveryAttemptDuration.labels(kind!))
const deliveryCount = children((kind, outcome) => deliveries.labels(kind!, outcome!))

/** The result label of an attempt: its status class, or no_answer (time-out, refused connection, SSRF refusal). */
export const attemptResult = (status: number | null) =>
  status === null ? "no_answer" : status >= 200 && status < 600 ? `${Math.floor(status / 100)}xx` : "other"

/**
 * One webhook POST and what it led to. `finalAttempt`: no retry follows a failure
 * (the 5th attempt). `eventAgeMs`: ms since the event's commit, for a 2xx of a normalized delivery.
 */
export const observeDeliveryAttempt = (
  kind: DeliveryKind,
  status: number | null,
  latencyMs: number,
  finalAttempt: boolean,
  eventAgeMs?: number
) => {
  const ok = status !== null && status >= 200 && status < 300
  attemptCount(kind, attemptResult(status)).inc()
  attemptDuration(kind).observe(latencyMs / 1000)
  deliveryCount(kind, ok ? "delivered" : finalAttempt ? "failed" : "retry_scheduled").inc()
  if (ok && eventAgeMs !== undefined && eventAgeMs >= 0) deliveryLatency.observe(eventAgeMs / 1000)
}

export const subscriptionsSwitchedOff = new Counter({
  name: "platform_subscriptions_switched_off_total",
  help: "Subscriptions paused for their failure rate (auto_paused_high_failure_rate) or disabled by a 410 Gone (receiver_gone_410)",
  labelNames: ["reason"] as const,
  registers
})

export const countSwitchedOff = (reason: "auto_paused_high_failure_rate" | "receiver_gone_410", n = 1) => {
  if (n > 0) subscriptionsSwitchedOff.labels(reason).inc(n)
}

export const deliveryQueueDue = new Gauge({
  name: "platform_delivery_queue_due",
  help: "Rows due for a POST now (pending, retry time passed; counted up to 100,000), by queue",
  labelNames: ["queue"] as const,
  registers
})

export const deliveryQueueOldestDue = new Gauge({
  name: "platform_delivery_queue_oldest_due_seconds",
  help: "How long the longest-waiting due row has been due (0 when none), by queue",
  labelNames: ["queue"] as const,
  registers
})

export const deliveryQueueInFlight = new Gauge({
  name: "platform_delivery_queue_in_flight",
  help: "Rows leased by a dispatcher (delivering; counted up to 100,000), by queue",
  labelNames: ["queue"] as const,
  registers
})

export const outboxPending = new Gauge({
  name: "platform_event_outbox_pending",
  help: "Events written and not fanned out to subscriptions yet (counted up to 100,000)",
  registers
})

// Upstream (Graph API)

export const upstreamRequests = new Counter({
  name: "platform_upstream_requests_total",
  help: "Graph API calls (each attempt) by operation, outcome (ok, an error kind, timeout) and Meta error code",
  labelNames: ["operation", "outcome", "meta_code"] as const,
  registers
})

export const upstreamRequestDuration = new Histogram({
  name: "platform_upstream_request_duration_seconds",
  help: "Duration of one Graph API call attempt, by operation",
  labelNames: ["operation"] as const,
  buckets: LATENCY_BUCKETS,
  registers
})

const upstreamCount = children((operation, outcome, code) => upstreamRequests.labels(operation!, outcome!, code!))
const upstreamDuration = children((operation) => upstreamRequestDuration.labels(operation!))

/** `metaCode`: Meta's `error.code` when it is one we know (a bounded label), else `other`; `none` without one. */
export const observeUpstreamCall = (operation: string, outcome: string, metaCode: string, seconds: number) => {
  upstreamCount(operation, outcome, metaCode).inc()
  upstreamDuration(operation).observe(seconds)
}

export const throttleWaits = new Counter({
  name: "platform_upstream_throttle_waits_total",
  help: "Sends that waited for their sender's next slot (Meta's throughput), by store (local, redis)",
  labelNames: ["store"] as const,
  registers
})

export const throttleWaitSeconds = new Histogram({
  name: "platform_upstream_throttle_wait_seconds",
  help: "How long a send waited for its slot, by store",
  labelNames: ["store"] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers
})

export const throttleRefusals = new Counter({
  name: "platform_upstream_throttle_refusals_total",
  help: "Sends refused (502 upstream_throttled) because the sender's next slot was more than the longest wait away, by store",
  labelNames: ["store"] as const,
  registers
})

/** A throttle acquisition: waited `waitMs` (0: none), or refused. */
export const observeThrottle = (store: "local" | "redis", waitMs: number | "refused") => {
  if (waitMs === "refused") return throttleRefusals.labels(store).inc()
  if (waitMs <= 0) return
  throttleWaits.labels(store).inc()
  throttleWaitSeconds.labels(store).observe(waitMs / 1000)
}

// Broadcasts

export const broadcastRecipients = new Counter({
  name: "platform_broadcast_recipients_total",
  help: "Broadcast recipients sent to or failed by the send cycle",
  labelNames: ["outcome"] as const,
  registers
})

export const broadcastsFinished = new Counter({
  name: "platform_broadcasts_finished_total",
  help: "Broadcasts that left sending, by their final status (completed, failed)",
  labelNames: ["status"] as const,
  registers
})

export const broadcastsSending = new Gauge({
  name: "platform_broadcasts_sending",
  help: "Broadcasts in status sending",
  registers
})

export const broadcastRecipientsPending = new Gauge({
  name: "platform_broadcast_recipients_pending",
  help: "Recipients of sending broadcasts not sent yet (counted up to 100,000)",
  registers
})

// Database

export const dbPoolConnections = new Gauge({
  name: "platform_db_pool_connections",
  help: "Connections of a pg pool by state (in_use, idle), by pool (app, engine, inbound)",
  labelNames: ["pool", "state"] as const,
  registers
})

export const dbPoolWaiting = new Gauge({
  name: "platform_db_pool_waiting",
  help: "Queries waiting for a connection of the pool",
  labelNames: ["pool"] as const,
  registers
})

export const dbPoolMax = new Gauge({
  name: "platform_db_pool_max",
  help: "The most connections the pool opens",
  labelNames: ["pool"] as const,
  registers
})

// Rate limits

/** Why a request was answered 429. */
export type RateLimitReason = "api_key" | "login" | "event_streams" | "template_quota"

export const rateLimited = new Counter({
  name: "platform_rate_limited_total",
  help: "429s by reason (api_key: the key's per-minute limit; login: sign-in attempts; event_streams: streams per account; template_quota: the plan's monthly template messages, broadcast recipients refused for it included)",
  labelNames: ["reason"] as const,
  registers
})

export const countRateLimited = (reason: RateLimitReason) => rateLimited.labels(reason).inc()
