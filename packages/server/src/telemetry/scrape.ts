import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { PgPool } from "../db/client.js"
import { samplePools, trackPool } from "./db-pools.js"
import {
  broadcastRecipientsPending,
  broadcastsSending,
  deliveryQueueDue,
  deliveryQueueInFlight,
  deliveryQueueOldestDue,
  outboxPending,
  registry
} from "./metrics.js"

/** Counts stop here: a scrape must stay cheap however large a backlog grows. */
const COUNT_CAP = 100_000

interface QueueSample {
  readonly normalized_due: number
  readonly normalized_oldest: number
  readonly normalized_in_flight: number
  readonly raw_due: number
  readonly raw_oldest: number
  readonly raw_in_flight: number
  readonly outbox: number
  readonly broadcasts_sending: number
  readonly recipients_pending: number
}

/*
 * One statement, each part on a partial index: the due rows of webhook_deliveries
 * (webhook_deliveries_due_idx) and platform_deliveries (platform_deliveries_due_idx,
 * the raw-forward claim's own condition: pending, or delivering past its lease), the
 * leased ones (webhook_deliveries_lease_idx), the oldest due row by the index's first
 * entry, sending broadcasts (broadcasts_sending_idx) and their pending recipients
 * (broadcast_recipients_pending_idx). Counts walk index entries up to COUNT_CAP.
 */
const QUEUES = `
select
  (select count(*) from (select 1 from webhook_deliveries
     where status = 'pending' and next_retry_at <= now() limit ${COUNT_CAP}) d)::int as normalized_due,
  coalesce(extract(epoch from now() - (select min(next_retry_at) from webhook_deliveries
     where status = 'pending' and next_retry_at <= now())), 0)::float8 as normalized_oldest,
  (select count(*) from (select 1 from webhook_deliveries
     where status = 'delivering' limit ${COUNT_CAP}) d)::int as normalized_in_flight,
  (select count(*) from (select 1 from platform_deliveries
     where status in ('pending', 'delivering') and next_retry_at <= now() limit ${COUNT_CAP}) d)::int as raw_due,
  coalesce(extract(epoch from now() - (select min(next_retry_at) from platform_deliveries
     where status in ('pending', 'delivering') and next_retry_at <= now())), 0)::float8 as raw_oldest,
  (select count(*) from (select 1 from platform_deliveries
     where status = 'delivering' and next_retry_at > now() limit ${COUNT_CAP}) d)::int as raw_in_flight,
  (select count(*) from (select 1 from event_outbox limit ${COUNT_CAP}) o)::int as outbox,
  (select count(*) from broadcasts where status = 'sending')::int as broadcasts_sending,
  (select count(*) from (select 1 from broadcasts b join broadcast_recipients r on r.broadcast_id = b.id
     where b.status = 'sending' and r.status = 'pending' limit ${COUNT_CAP}) r)::int as recipients_pending`

const QUEUE_GAUGES = [deliveryQueueDue, deliveryQueueOldestDue, deliveryQueueInFlight, outboxPending, broadcastsSending, broadcastRecipientsPending]

/**
 * The metrics endpoint's work: at each scrape, the queue and broadcast gauges from one
 * indexed statement (2 s at most; during a database outage they are left out of the
 * answer rather than stale) and the pool gauges, then the registry in text format.
 */
export class MetricsScrape extends Effect.Service<MetricsScrape>()("@platform/server/MetricsScrape", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* Effect.serviceOption(PgPool)
    if (Option.isSome(pool)) yield* trackPool("app", pool.value.pool)
    let failing = false

    const sampleQueues = sql.unsafe<QueueSample>(QUEUES).pipe(
      // A statement that times out is cancelled in the background (the cancel needs a
      // connection too, and may wait 5 s for one): the scrape answers at once.
      Effect.disconnect,
      Effect.timeout("2 seconds"),
      Effect.flatMap(([s]) =>
        Effect.sync(() => {
          failing = false
          if (s === undefined) return
          deliveryQueueDue.labels("normalized").set(s.normalized_due)
          deliveryQueueDue.labels("raw_forward").set(s.raw_due)
          deliveryQueueOldestDue.labels("normalized").set(s.normalized_oldest)
          deliveryQueueOldestDue.labels("raw_forward").set(s.raw_oldest)
          deliveryQueueInFlight.labels("normalized").set(s.normalized_in_flight)
          deliveryQueueInFlight.labels("raw_forward").set(s.raw_in_flight)
          outboxPending.set(s.outbox)
          broadcastsSending.set(s.broadcasts_sending)
          broadcastRecipientsPending.set(s.recipients_pending)
        })
      ),
      Effect.catchAllCause((cause) =>
        Effect.suspend(() => {
          for (const gauge of QUEUE_GAUGES) gauge.reset()
          if (failing) return Effect.void
          failing = true
          return Effect.logWarning("metrics: the queue gauges could not be read; left out until the database answers", cause)
        })
      )
    )

    /** The registry in Prometheus text format, the scrape-time gauges refreshed first. */
    const scrape = Effect.zipRight(
      Effect.zipRight(sampleQueues, Effect.sync(samplePools)),
      Effect.promise(() => registry.metrics())
    )

    return { scrape, contentType: registry.contentType } as const
  })
}) {}
