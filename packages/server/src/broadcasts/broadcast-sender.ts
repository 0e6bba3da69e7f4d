import { SqlClient } from "@effect/sql"
import { type Plan, PLAN_LIMITS, type SendMessage } from "@platform/shared"
import { Clock, Effect } from "effect"
import { ChannelCredentialsCache } from "../channels/channel-credentials.js"
import { Messages } from "../messages/messages.js"
import { broadcastRecipientSend, type HeldRecipients } from "./broadcast-recipient-send.js"
import { broadcastRecipients, broadcastsFinished } from "../telemetry/metrics.js"

/** Recipients claimed at a time: one batch is a few seconds of sending at the upstream's 80 messages a second. */
export const BROADCAST_BATCH_SIZE = 100

/*
 * How long a claim holds a recipient. A batch of 100 on one channel takes about
 * 1.3 s at 80/s; a worker slowed by the upstream (10 s deadline a call) hands back
 * what it has not sent after half of this, so its claims never expire under it. A
 * claim left by a worker that died is taken again after this: a recipient is never lost.
 */
const CLAIM_LEASE_MS = 120_000

/*
 * The plans a broadcast is sent on: broadcasts are off on the free plan (403
 * plan_forbidden at the API), and an account may move to it while a broadcast is
 * sending. SPEC §3.3 and DESIGN §5 name no transition for that, so the cycle pauses
 * the account's broadcasts instead of moving them: nothing more is sent (the plan is
 * checked at every claim and before every recipient, as a cancel is), unsent
 * recipients stay pending and unclaimed, a sending broadcast stays sending and a due
 * scheduled one stays scheduled, and nothing is counted. Back on a plan with
 * broadcasts, the next pass goes on where it stopped; a cancel (possible again
 * then) makes it a draft.
 */
const BROADCAST_PLANS = (Object.keys(PLAN_LIMITS) as Array<Plan>).filter((plan) => PLAN_LIMITS[plan].broadcasts_enabled)

type RuntimeComponents = NonNullable<Extract<SendMessage, { readonly type: "template" }>["components"]>

interface Claimed {
  readonly id: number
  readonly to: string
  readonly components: RuntimeComponents | null
  readonly broadcast_id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number
  readonly template_name: string
  readonly language_code: string
  readonly default_components: RuntimeComponents | null
}

export interface CycleResult {
  /** Scheduled broadcasts that came due and were started. */
  readonly started: number
  readonly sent: number
  readonly failed: number
  /** Broadcasts that moved to completed or failed. */
  readonly finished: number
}

const templateSend = (r: Claimed): SendMessage => {
  const components = r.components ?? r.default_components
  return {
    type: "template",
    channel_id: r.platform_channel_id,
    to: r.to,
    template_name: r.template_name,
    language_code: r.language_code,
    ...(components !== null ? { components } : {})
  } as SendMessage
}

/**
 * One pass of the broadcast send cycle (SPEC §3.3): starts the scheduled broadcasts
 * that came due, sends every pending recipient of a sending broadcast in claimed
 * batches through the send path of POST /messages, and closes the broadcasts with
 * no recipient left pending. Any number of passes may run at once, in one process (the
 * send cycle overlaps them) or several.
 */
export class BroadcastSender extends Effect.Service<BroadcastSender>()("@platform/server/BroadcastSender", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const held: HeldRecipients = new Set()
    const sendToRecipient = broadcastRecipientSend(sql, yield* Messages, held)
    const channels = yield* ChannelCredentialsCache

    /** Scheduled broadcasts that came due, of accounts whose plan allows broadcasts (see BROADCAST_PLANS). */
    const startDue = (now: Date) =>
      sql<{ id: number }>`
        update broadcasts set status = 'sending', started_at = now(), completed_at = null, updated_at = now()
        where status = 'scheduled' and scheduled_at <= ${now}
          and developer_account_id in (select id from developer_accounts where plan = any(${BROADCAST_PLANS}::text[]))
        returning id`.pipe(Effect.orDie)

    /**
     * Claims up to a batch of pending recipients of sending broadcasts. SKIP LOCKED
     * keeps two workers off each other's rows while they claim, and the lease keeps
     * them off once claimed: a row is only taken when unclaimed or its lease expired.
     * The batch takes the channels in turn (each one's first recipient, then each
     * one's second, ...), so a big broadcast on one channel never holds up the other
     * channels' broadcasts (of any account) behind its own batches.
     *
     * Work is about the rows taken, not the rows pending: a channel's recipients are
     * read in the order of the pending index (its older broadcast first) and the read
     * stops at the channel's share of the batch (the batch split evenly over the
     * channels with a recipient to take). A channel with less than its share left
     * makes a smaller batch; the pass claims again after it. Only broadcasts of
     * accounts whose plan allows broadcasts are claimed (see BROADCAST_PLANS), and
     * never a recipient whose outcome this process holds (HeldRecipients).
     */
    const claim = (now: Date, skipChannels: ReadonlyArray<number>) =>
      sql<Claimed>`
        with live as (
          select b.platform_channel_id, array_agg(b.id) as ids from broadcasts b
          join developer_accounts a on a.id = b.developer_account_id
          where b.status = 'sending' and a.plan = any(${BROADCAST_PLANS}::text[])
            and b.platform_channel_id <> all(${skipChannels}::bigint[])
            and exists (
              select 1 from broadcast_recipients r
              where r.broadcast_id = b.id and r.status = 'pending' and (r.claimed_until is null or r.claimed_until <= ${now}))
          group by b.platform_channel_id
        ),
        picked as (
          select p.id, p.broadcast_id, l.platform_channel_id from live l
          cross join lateral (
            select r.id, r.broadcast_id from broadcast_recipients r
            where r.broadcast_id = any(l.ids) and r.status = 'pending' and (r.claimed_until is null or r.claimed_until <= ${now})
              and r.id <> all(${[...held]}::bigint[])
            order by r.broadcast_id, r.id
            limit (select ceil(${BROADCAST_BATCH_SIZE}::numeric / greatest(count(*), 1)) from live)
            for update of r skip locked
          ) p
        ),
        c as (
          select t.id from (
            select id, row_number() over (partition by platform_channel_id order by broadcast_id, id) as turn from picked
          ) t
          order by t.turn, t.id
          limit ${BROADCAST_BATCH_SIZE}
        )
        update broadcast_recipients r set claimed_until = ${new Date(now.getTime() + CLAIM_LEASE_MS)}
        from c, broadcasts b
        where r.id = c.id and b.id = r.broadcast_id
        returning r.id, r."to", r.components, b.id as broadcast_id, b.developer_account_id, b.platform_channel_id,
          b.template_name, b.language_code, b.components as default_components`.pipe(Effect.orDie)

    const release = (ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.void
        : sql`update broadcast_recipients set claimed_until = null where id = any(${ids}::bigint[]) and status = 'pending'`
          .pipe(Effect.orDie, Effect.asVoid)

    /** Still sending and not paused (the account's plan still allows broadcasts). */
    const stillSending = (broadcastId: number) =>
      sql<{ id: number }>`
        select b.id from broadcasts b join developer_accounts a on a.id = b.developer_account_id
        where b.id = ${broadcastId} and b.status = 'sending' and a.plan = any(${BROADCAST_PLANS}::text[])`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.length > 0)
      )

    const channelGone = (ids: ReadonlyArray<number>, message: string) =>
      sql`
        update broadcast_recipients set status = 'failed', updated_at = now(), claimed_until = null,
          error = ${JSON.stringify({ error: "channel_unusable", message })}::jsonb
        where id = any(${ids}::bigint[]) and status = 'pending'`.pipe(Effect.orDie, Effect.asVoid)

    /**
     * One channel's share of a batch, one send after the other: the upstream throttle
     * spaces them at the channel's throughput. When a send is refused for throughput
     * (another sender holds the channel's slots, or Meta's limit), the rest is
     * released and the channel sits out the rest of this pass. Once `stopping` answers
     * true (the process is stopping), the recipient being sent is finished and the rest
     * released.
     */
    const sendChannel = (claimedAt: number, stopping: Effect.Effect<boolean>) => (group: ReadonlyArray<Claimed>) =>
      Effect.gen(function*() {
        const first = group[0]!
        const channel = yield* channels.get(first.developer_account_id, first.platform_channel_id).pipe(Effect.either)
        if (channel._tag === "Left") {
          yield* channelGone(group.map((r) => r.id), channel.left.message)
          broadcastRecipients.labels("failed").inc(group.length)
          return { sent: 0, failed: group.length, throttled: 0 }
        }
        let sent = 0
        let failed = 0
        for (let i = 0; i < group.length; i++) {
          // A slow upstream must not outlast the claim: past half the lease the rest is handed back
          // unsent, before another worker could take it over while this one still sends it. A stop
          // hands it back too, for the next process to claim at once.
          if ((yield* Clock.currentTimeMillis) - claimedAt > CLAIM_LEASE_MS / 2 || (yield* stopping)) {
            yield* release(group.slice(i).map((r) => r.id))
            return { sent, failed, throttled: 0 }
          }
          // A cancel or a downgrade to free stops the batch at the next recipient, not at its end (100 sends at 1/s are 100 s).
          if (!(yield* stillSending(group[i]!.broadcast_id))) {
            yield* release([group[i]!.id])
            continue
          }
          const outcome = yield* sendToRecipient(channel.right, templateSend(group[i]!), group[i]!.id)
          if (outcome === "throttled") {
            yield* release(group.slice(i + 1).map((r) => r.id))
            return { sent, failed, throttled: group.length - i }
          }
          if (outcome === "sent") sent++
          else failed++
          broadcastRecipients.labels(outcome === "sent" ? "sent" : "failed").inc()
        }
        return { sent, failed, throttled: 0 }
      })

    /**
     * sending → completed when no recipient is pending; failed when none was sent and
     * some failed. Which broadcasts finish is decided by index probes (a pending
     * recipient in broadcast_recipients_pending_idx, any recipient at all), not by
     * counting: a broadcast still sending has a pending recipient, found at once,
     * while a count would read every recipient of it (100,000 a pass for a big one)
     * on every pass. Only a broadcast that finishes has its recipients counted, once.
     * `materialized` keeps the planner from counting before it probes. A recipient
     * counts as sent in any state past it (the contact wipe writes a redacted
     * recipient's state to its status: broadcast-recipient-state.ts).
     */
    const finish = sql<{ id: number; status: string }>`
      with done as materialized (
        select b.id from broadcasts b
        where b.status = 'sending'
          and not exists (select from broadcast_recipients r where r.broadcast_id = b.id and r.status = 'pending')
          and exists (select from broadcast_recipients r where r.broadcast_id = b.id)
      )
      update broadcasts b
      set status = case when s.sent = 0 and s.failed > 0 then 'failed' else 'completed' end,
        completed_at = now(), updated_at = now()
      from done d
      cross join lateral (
        select count(*) filter (where r.status in ('sent','delivered','read','responded')) as sent,
          count(*) filter (where r.status = 'failed') as failed
        from broadcast_recipients r where r.broadcast_id = d.id
      ) s
      where b.id = d.id and b.status = 'sending'
      returning b.id, b.status`.pipe(Effect.orDie)

    /**
     * `superseded`, when given, is asked before every batch but the first: once it answers
     * true (the send cycle has a newer pass running, which claims what is left at its own
     * next batch), this pass claims nothing more and ends. Without it a pass goes on while
     * there is anything to send. `stopping`, when given, is asked before every batch and
     * every recipient: once it answers true, the pass releases what it has not sent and ends.
     */
    const runOnce = Effect.fn("BroadcastSender.runOnce")(function*(
      options: { readonly superseded?: Effect.Effect<boolean>; readonly stopping?: Effect.Effect<boolean> } = {}
    ) {
      const stopping = options.stopping ?? Effect.succeed(false)
      let started = 0
      let sent = 0
      let failed = 0
      const busy: Array<number> = []
      for (let batches = 0;; batches++) {
        if (yield* stopping) break
        if (batches > 0 && options.superseded !== undefined && (yield* options.superseded)) break
        const claimedAt = yield* Clock.currentTimeMillis
        // Before each batch, not once a pass: a pass lasts as long as there is something to send, and a
        // broadcast that comes due meanwhile joins the next batch instead of waiting for the pass to end.
        started += (yield* startDue(new Date(claimedAt))).length
        const batch = yield* claim(new Date(claimedAt), busy)
        if (batch.length === 0) break
        const byChannel = new Map<number, Array<Claimed>>()
        for (const r of batch) {
          const group = byChannel.get(r.platform_channel_id)
          if (group === undefined) byChannel.set(r.platform_channel_id, [r])
          else group.push(r)
        }
        const groups = [...byChannel.values()]
        const outcomes = yield* Effect.forEach(groups, sendChannel(claimedAt, stopping), { concurrency: 4 })
        outcomes.forEach((o, i) => {
          sent += o.sent
          failed += o.failed
          if (o.throttled > 0) busy.push(groups[i]![0]!.platform_channel_id)
        })
      }
      const finished = yield* finish
      for (const b of finished) broadcastsFinished.labels(b.status).inc()
      return { started, sent, failed, finished: finished.length } satisfies CycleResult
    })

    return { runOnce } as const
  }),
  dependencies: [ChannelCredentialsCache.Default, Messages.Default]
}) {}
