import { SqlClient } from "@effect/sql"
import { BUFFER_MAX_BATCH_MAX } from "@platform/shared"
import { Clock, Effect } from "effect"
import { newEventId } from "../outbox/events.js"
import { DeliveryWakeup } from "./wakeup.js"

export const BUFFER_LOCK = 0x706c_6602

interface ItemRow {
  readonly id: number
  readonly subscription_id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number | null
  readonly event_type: string
  /** The event's stored text. */
  readonly envelope: string
  readonly created_at: Date
  readonly buffer_window_seconds: number | null
  readonly buffer_max_batch: number | null
}

export interface BufferResult {
  readonly batches: number
  /** When the oldest still-open window closes (ms), if any is open. */
  readonly nextDueAt: number | null
}

/**
 * Buffering (SPEC §6.4). Fan-out stages the envelopes of buffered subscriptions;
 * this turns each (subscription, event type) group into batch delivery rows
 * `{events: [...]}` once `buffer_max_batch` envelopes are there or the window,
 * counted from the batch's first envelope, has elapsed. Serialized across
 * processes by an advisory lock so a group is never split into two partial
 * batches by two assemblers.
 */
export class DeliveryBuffer extends Effect.Service<DeliveryBuffer>()("@platform/server/DeliveryBuffer", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeup = yield* DeliveryWakeup

    const assemble = (now: Date) =>
      Effect.gen(function*() {
        const [lock] = yield* sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${BUFFER_LOCK}) as ok`
        if (lock?.ok !== true) return { batches: 0, nextDueAt: null } satisfies BufferResult
        const items = yield* sql<ItemRow>`
          select i.id, i.subscription_id, i.developer_account_id, i.platform_channel_id, i.event_type, i.envelope::text as envelope,
                 i.created_at, s.buffer_window_seconds, s.buffer_max_batch
          from webhook_buffer_items i join webhook_subscriptions s on s.id = i.subscription_id
          order by i.id
          limit 20000`
        const groups = new Map<string, Array<ItemRow>>()
        for (const item of items) {
          const key = `${item.subscription_id}\u0000${item.event_type}`
          const group = groups.get(key)
          if (group === undefined) groups.set(key, [item])
          else group.push(item)
        }
        const batches: Array<ReadonlyArray<ItemRow>> = []
        let nextDueAt: number | null = null
        for (const group of groups.values()) {
          const first = group[0]!
          const max = first.buffer_max_batch ?? BUFFER_MAX_BATCH_MAX
          const windowMs = (first.buffer_window_seconds ?? 0) * 1000
          for (let start = 0; start < group.length; start += max) {
            const chunk = group.slice(start, start + max)
            const closesAt = chunk[0]!.created_at.getTime() + windowMs
            if (chunk.length >= max || closesAt <= now.getTime()) batches.push(chunk)
            else nextDueAt = nextDueAt === null ? closesAt : Math.min(nextDueAt, closesAt)
          }
        }
        if (batches.length === 0) return { batches: 0, nextDueAt } satisfies BufferResult
        const channelOf = (chunk: ReadonlyArray<ItemRow>) => {
          const channel = chunk[0]!.platform_channel_id
          return chunk.every((i) => i.platform_channel_id === channel) ? channel : null
        }
        const rows = batches.map((chunk) => ({
          subscription_id: chunk[0]!.subscription_id,
          developer_account_id: chunk[0]!.developer_account_id,
          platform_channel_id: channelOf(chunk),
          event_id: newEventId(),
          event_type: chunk[0]!.event_type,
          // The events' stored texts as they are (migration 0011: what a lone delivery would send).
          envelope: `{"events":[${chunk.map((i) => i.envelope).join(",")}]}`
        }))
        const consumed = batches.flatMap((chunk) => chunk.map((i) => i.id))
        yield* sql`
          with ins as (
            insert into webhook_deliveries
              (subscription_id, developer_account_id, platform_channel_id, event_id, event_type, envelope, is_batch,
               next_retry_at, created_at, updated_at)
            select b.subscription_id, b.developer_account_id, b.platform_channel_id, b.event_id, b.event_type,
                   b.envelope::json, true, ${now}, ${now}, ${now}
            from unnest(${rows.map((r) => r.subscription_id)}::bigint[],
                        ${rows.map((r) => r.developer_account_id)}::bigint[],
                        ${rows.map((r) => r.platform_channel_id)}::bigint[],
                        ${rows.map((r) => r.event_id)}::text[],
                        ${rows.map((r) => r.event_type)}::text[],
                        ${rows.map((r) => r.envelope)}::text[]) with ordinality
              as b(subscription_id, developer_account_id, platform_channel_id, event_id, event_type, envelope, n)
            -- No foreign key (migration 0006): a subscription deleted meanwhile gets no row.
            join webhook_subscriptions s on s.id = b.subscription_id
            order by b.n
            for key share of s
            returning 1
          )
          delete from webhook_buffer_items where id = any(${consumed}::bigint[])`
        return { batches: batches.length, nextDueAt } satisfies BufferResult
      })

    /** Emits every batch that is full or whose window has elapsed. */
    const runOnce = Effect.fn("DeliveryBuffer.runOnce")(function*() {
      const now = new Date(yield* Clock.currentTimeMillis)
      const result = yield* sql.withTransaction(assemble(now)).pipe(Effect.orDie)
      if (result.batches > 0) yield* wakeup.deliveriesWritten
      return result
    })

    return { runOnce } as const
  })
}) {}
