import { expect, layer } from "@effect/vitest"
import { Chunk, Duration, Effect, Fiber, Option, Stream, SubscriptionRef, TestClock, TestContext, TestServices } from "effect"
import { BroadcastSender } from "../../src/broadcasts/broadcast-sender.js"
import { SANDBOX_MAGIC_RECIPIENTS } from "../../src/upstream/sandbox/magic.js"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { broadcastSendCycle } from "../../src/broadcasts/broadcast-send-cycle.js"
import {
  api,
  broadcastRow,
  draftWith,
  freshTo,
  MessagingTestServer,
  recipientRows,
  request,
  sandboxSends,
  setPlan,
  setUsage,
  type Setup,
  setup,
  sharedSetup,
  sql,
  usageOf
} from "./support.js"

const ctx = sharedSetup("bcs")

const FAILS = SANDBOX_MAGIC_RECIPIENTS.reengagementRequired

/** A broadcast with `tos` loaded and sent (202 sending). */
const sending = (s: Setup, tos: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const id = yield* draftWith(s, tos)
    const reply = yield* api(s, "POST", `/${id}/send`)
    if (reply.status !== 202) throw new Error(`send ${reply.status} ${reply.text}`)
    return id
  })

const runOnce = Effect.flatMap(BroadcastSender, (sender) => sender.runOnce())

/**
 * A pass on the test clock over a channel sending one a second, with `stop` run (a
 * cancel, a downgrade) while the pass waits for its second recipient's slot; the pass's result.
 */
const stopDuringSecondSlot = <E, R>(stop: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const t0 = Date.now()
    yield* TestClock.setTime(t0)
    const pass = yield* Effect.fork(runOnce)
    // Waits (without time passing) until the pass sleeps until t0 + 1 s for the second slot.
    yield* TestClock.sleeps().pipe(
      Effect.tap(() => Effect.yieldNow()),
      Effect.repeat({ until: Chunk.some((at) => at === t0 + 1000) })
    )
    yield* stop
    yield* TestClock.adjust(Duration.seconds(1))
    return yield* Fiber.join(pass)
  }).pipe(Effect.provide(TestContext.TestContext))

/** Holds a recipient as another worker's claim would: live (`ms` ahead) or expired (`ms` < 0). */
const claimFor = (recipientId: number, ms: number) =>
  Effect.flatMap(sql, (q) =>
    q`update broadcast_recipients set claimed_until = ${new Date(Date.now() + ms)} where id = ${recipientId}`)

/** Waits until the cycle's `ticks` (its finished passes) reach `n`. */
const finishedPasses = (ticks: SubscriptionRef.SubscriptionRef<number>, n: number) =>
  ticks.changes.pipe(Stream.filter((k) => k >= n), Stream.take(1), Stream.runDrain)

/** `finishedPasses` while the test clock stands still: true when they did within 20 s of real time. */
const tickedWhileStill = (ticks: SubscriptionRef.SubscriptionRef<number>, n: number) =>
  finishedPasses(ticks, n).pipe(Effect.timeoutOption("20 seconds"), TestServices.provideLive, Effect.map(Option.isSome))

const sleepsAt = (at: number) => Effect.map(TestClock.sleeps(), (all) => Chunk.size(Chunk.filter(all, (when) => when === at)))

/**
 * The test clock of a cycle started at `t0`, every channel of the test sending one a second. `next` moves it
 * one second on once the cycle waits for that second: a fiber started a wait for it during the second before
 * (a throttle slot; the sleeps already there then are earlier calls' upstream deadlines and the next tick), or
 * every pass started so far (one a tick, at t0, t0 + 30 s, ...) has finished. Returns the new second.
 * `waiting` waits for the same without moving the clock.
 */
const cycleClock = (t0: number, ticks: SubscriptionRef.SubscriptionRef<number>) => {
  let k = 0
  let waitingBefore = 0
  const waiting = Effect.suspend(() =>
    Effect.zip(sleepsAt(t0 + (k + 1) * 1000), SubscriptionRef.get(ticks)).pipe(
      Effect.tap(() => Effect.yieldNow()),
      Effect.repeat({ until: ([waits, finished]) => waits > waitingBefore || finished >= 1 + Math.floor(k / 30) })
    )
  )
  return {
    start: Effect.gen(function*() {
      waitingBefore = yield* sleepsAt(t0 + 1000)
      yield* TestClock.setTime(t0)
    }),
    waiting,
    next: Effect.gen(function*() {
      yield* waiting
      waitingBefore = yield* sleepsAt(t0 + (k + 2) * 1000)
      yield* TestClock.setTime(t0 + (k + 1) * 1000)
      return ++k
    })
  }
}

// The sandbox's status callbacks are held back (10 minutes) so that a message's status is what each test sets.
layer(MessagingTestServer({ SANDBOX_CALLBACK_DELAY_MS: "600000" }), { timeout: 120_000, excludeTestServices: true })("broadcast send cycle", (it) => {
  it.effect("a pass sends each pending recipient once as a template message, records failures, and completes the broadcast", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const [a, b] = [freshTo(), freshTo()]
      const id = yield* sending(s, [a, b, FAILS])
      const templatesBefore = yield* usageOf(s.dev.accountId, "template_messages")
      const before = yield* sandboxSends

      const result = yield* runOnce
      expect(result).toMatchObject({ sent: 2, failed: 1 })
      expect((yield* sandboxSends) - before).toBe(3)
      const rows = yield* recipientRows(id)
      expect(rows.map((r) => [r.to, r.status])).toEqual([[a, "sent"], [b, "sent"], [FAILS, "failed"]])
      expect(rows[0]!.meta_message_id).toMatch(/^wamid\./)
      expect(rows[2]!.error).toMatchObject({ meta_code: 131047 })
      // Recorded like a template send of POST /messages: the message rows, and the quota only for what was sent.
      const messages = yield* q<{ type: string; source: string; status: string; meta_message_id: string | null }>`
        select type, source, status, meta_message_id from messages where platform_channel_id = ${s.chat} and meta_message_id = any(${
        rows.slice(0, 2).map((r) => r.meta_message_id)
      }::text[])`
      expect(messages).toHaveLength(2)
      expect(messages.every((m) => m.type === "template" && m.source === "broadcast")).toBe(true)
      const events = yield* q<{ source: string }>`
        select envelope::json -> 'data' ->> 'source' as source from events
        where event_type = 'message.sent' and envelope::json -> 'data' ->> 'meta_message_id' = any(${rows.slice(0, 2).map((r) => r.meta_message_id)}::text[])`
      expect(events.map((e) => e.source)).toEqual(["api", "api"])
      expect((yield* usageOf(s.dev.accountId, "template_messages")) - templatesBefore).toBe(2)

      const done = yield* broadcastRow(id)
      expect(done.status).toBe("completed")
      expect(done.completed_at).not.toBeNull()
      expect(done.started_at).not.toBeNull()

      expect(yield* runOnce).toMatchObject({ sent: 0, failed: 0 })
      expect((yield* sandboxSends) - before).toBe(3)
    }))

  it.effect("a broadcast whose every send failed ends failed", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* sending(s, [FAILS, SANDBOX_MAGIC_RECIPIENTS.invalidParameter])
      yield* runOnce
      expect((yield* recipientRows(id)).map((r) => r.status)).toEqual(["failed", "failed"])
      const row = yield* broadcastRow(id)
      expect(row.status).toBe("failed")
      expect(row.completed_at).not.toBeNull()
    }))

  it.effect("two passes at once (two workers) send each recipient exactly once", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const tos = Array.from({ length: 30 }, () => freshTo())
      const id = yield* sending(s, tos)
      const before = yield* sandboxSends
      const results = yield* Effect.all([runOnce, runOnce], { concurrency: "unbounded" })
      expect(results[0]!.sent + results[1]!.sent).toBe(30)
      expect((yield* sandboxSends) - before).toBe(30)
      const rows = yield* recipientRows(id)
      expect(rows.every((r) => r.status === "sent")).toBe(true)
      expect(new Set(rows.map((r) => r.meta_message_id)).size).toBe(30)
      expect((yield* broadcastRow(id)).status).toBe("completed")
    }))

  it.effect("a throughput refusal (Meta's 130429) fails no one: the recipients stay pending, unclaimed and uncharged, and the channel sits out the pass", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-throughput")
      const id = yield* sending(s, [SANDBOX_MAGIC_RECIPIENTS.throughputLimited, freshTo()])
      const before = yield* sandboxSends
      expect(yield* runOnce).toMatchObject({ sent: 0, failed: 0, finished: 0 })
      expect((yield* sandboxSends) - before).toBe(1)
      const rows = yield* recipientRows(id)
      expect(rows.map((r) => [r.status, r.claimed_until])).toEqual([["pending", null], ["pending", null]])
      expect(yield* usageOf(s.dev.accountId, "template_messages")).toBe(0)
      expect((yield* broadcastRow(id)).status).toBe("sending")
      // Passes are global: stop it so that the other tests' passes do not send it again.
      expect((yield* api(s, "POST", `/${id}/cancel`)).status).toBe(200)
    }))

  it.effect("a pass sends every recipient of every sending broadcast once, a channel's older broadcast before its newer, however the batch is shared", () =>
    Effect.gen(function*() {
      const a = yield* setup("bcs-share-a")
      const b = yield* setup("bcs-share-b")
      const older = Array.from({ length: 120 }, () => freshTo())
      const newer = [freshTo(), freshTo()]
      const other = [freshTo()]
      const olderId = yield* sending(a, older)
      const newerId = yield* sending(a, newer)
      const otherId = yield* sending(b, other)
      const state = yield* SandboxState
      const from = state.messages.length
      expect(yield* runOnce).toMatchObject({ sent: 123, failed: 0 })
      const sentTo = state.messages.slice(from).map((m) => m.to)
      expect(sentTo.filter((to) => to !== other[0])).toEqual([...older, ...newer])
      expect(sentTo.filter((to) => to === other[0])).toHaveLength(1)
      for (const id of [olderId, newerId, otherId]) {
        expect((yield* recipientRows(id)).every((r) => r.status === "sent" && r.meta_message_id !== null)).toBe(true)
        expect((yield* broadcastRow(id)).status).toBe("completed")
      }
    }))

  it.effect("a recipient claimed by a live worker is left alone; one whose worker died (lease expired) is sent", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* sending(s, [freshTo(), freshTo()])
      const [held, orphan] = yield* recipientRows(id)
      yield* claimFor(held!.id, 60_000)
      yield* claimFor(orphan!.id, -1_000)
      const before = yield* sandboxSends
      expect(yield* runOnce).toMatchObject({ sent: 1, finished: 0 })
      expect((yield* recipientRows(id)).map((r) => r.status)).toEqual(["pending", "sent"])
      expect((yield* broadcastRow(id)).status).toBe("sending")

      yield* claimFor(held!.id, -1_000)
      expect(yield* runOnce).toMatchObject({ sent: 1 })
      expect((yield* sandboxSends) - before).toBe(2)
      expect((yield* broadcastRow(id)).status).toBe("completed")
    }))

  it.effect("cancel mid-send: sent recipients keep their state, nothing more is sent until the next send", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* sending(s, [freshTo(), freshTo(), freshTo()])
      const [first] = yield* recipientRows(id)
      // The first recipient is in another worker's batch when the broadcast is cancelled.
      yield* claimFor(first!.id, 60_000)
      const before = yield* sandboxSends
      yield* runOnce
      const cancelled = yield* api(s, "POST", `/${id}/cancel`)
      expect(cancelled.status).toBe(200)
      expect(cancelled.body.status).toBe("draft")

      yield* claimFor(first!.id, -1_000)
      expect(yield* runOnce).toMatchObject({ sent: 0 })
      expect((yield* sandboxSends) - before).toBe(2)
      const listed = yield* api(s, "GET", `/${id}/recipients`)
      expect(listed.body.counts).toMatchObject({ pending: 1, sent: 2 })
      expect((yield* broadcastRow(id)).status).toBe("draft")

      expect((yield* api(s, "POST", `/${id}/send`)).status).toBe(202)
      expect(yield* runOnce).toMatchObject({ sent: 1 })
      expect((yield* sandboxSends) - before).toBe(3)
      expect((yield* recipientRows(id)).map((r) => r.status)).toEqual(["sent", "sent", "sent"])
      expect((yield* broadcastRow(id)).status).toBe("completed")
    }))

  it.effect("after a downgrade to free the cycle sends nothing more: recipients stay pending, the broadcast waits in sending, a due one stays scheduled; an upgrade resumes both", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-downgrade")
      const q = yield* sql
      const id = yield* sending(s, [freshTo(), freshTo()])
      const dueId = yield* draftWith(s, [freshTo()])
      expect((yield* api(s, "POST", `/${dueId}/schedule`, { scheduled_at: new Date(Date.now() + 600_000).toISOString() })).status).toBe(200)
      yield* q`update broadcasts set scheduled_at = now() - interval '1 second' where id = ${dueId}`
      // Free allows one channel: the social one goes first, then the plan.
      expect((yield* request("DELETE", `/platform/dashboard/channels/${s.social}`, { cookie: s.dev.cookie })).status).toBe(204)
      expect((yield* setPlan(s.dev, "free")).status).toBe(200)
      expect((yield* api(s, "GET", `/${id}`)).status).toBe(403)

      const before = yield* sandboxSends
      const templatesBefore = yield* usageOf(s.dev.accountId, "template_messages")
      yield* runOnce
      expect((yield* sandboxSends) - before).toBe(0)
      expect((yield* recipientRows(id)).map((r) => [r.status, r.claimed_until])).toEqual([["pending", null], ["pending", null]])
      expect((yield* broadcastRow(id)).status).toBe("sending")
      expect((yield* broadcastRow(dueId)).status).toBe("scheduled")
      expect(yield* usageOf(s.dev.accountId, "template_messages")).toBe(templatesBefore)

      expect((yield* setPlan(s.dev, "lite")).status).toBe(200)
      yield* runOnce
      expect((yield* sandboxSends) - before).toBe(3)
      expect((yield* recipientRows(id)).map((r) => r.status)).toEqual(["sent", "sent"])
      expect((yield* recipientRows(dueId)).map((r) => r.status)).toEqual(["sent"])
      expect((yield* broadcastRow(id)).status).toBe("completed")
      expect((yield* broadcastRow(dueId)).status).toBe("completed")
    }))

  it.effect("the template quota is consumed per recipient sent, with no overage: past it recipients fail with template_quota_exceeded", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-quota")
      const id = yield* sending(s, [freshTo(), freshTo()])
      // lite: 2,500 template messages a month.
      yield* setUsage(s.dev.accountId, "template_messages", 2499)
      const before = yield* sandboxSends
      yield* runOnce
      expect((yield* sandboxSends) - before).toBe(1)
      const rows = yield* recipientRows(id)
      expect(rows.map((r) => r.status)).toEqual(["sent", "failed"])
      expect(rows[1]!.error).toMatchObject({ error: "template_quota_exceeded" })
      expect(yield* usageOf(s.dev.accountId, "template_messages")).toBe(2500)
      expect((yield* broadcastRow(id)).status).toBe("completed")
    }))

  it.effect("recipient states are read from the sent message: delivered, read, responded (the peer wrote after the send), failed", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const tos = [freshTo(), freshTo(), freshTo(), freshTo(), freshTo()]
      const id = yield* sending(s, tos)
      yield* runOnce
      const rows = yield* recipientRows(id)
      const setStatus = (i: number, status: string) =>
        q`update messages set status = ${status}, error = ${status === "failed" ? JSON.stringify({ message: "undeliverable" }) : null}::jsonb
          where platform_channel_id = ${s.chat} and meta_message_id = ${rows[i]!.meta_message_id}`
      yield* setStatus(0, "delivered")
      yield* setStatus(1, "read")
      yield* setStatus(2, "read")
      yield* setStatus(3, "failed")
      yield* q`insert into messages (developer_account_id, platform_channel_id, conversation_id, contact_id, direction, source, type, text, created_at)
        select developer_account_id, platform_channel_id, conversation_id, contact_id, 'inbound', 'contact', 'text', 'thanks!', now() + interval '1 second'
        from messages where platform_channel_id = ${s.chat} and meta_message_id = ${rows[2]!.meta_message_id}`

      const listed = yield* api(s, "GET", `/${id}/recipients`)
      expect(listed.status, listed.text).toBe(200)
      const state = new Map(listed.body.data.map((r: any) => [r.to, r.status]))
      expect(tos.map((to) => state.get(to))).toEqual(["delivered", "read", "responded", "failed", "sent"])
      expect(listed.body.counts).toEqual({ pending: 0, sent: 1, delivered: 1, read: 1, responded: 1, failed: 1 })
      expect(listed.body.data.find((r: any) => r.to === tos[3]).error).toBe("undeliverable")
      expect(listed.body.data.map((r: any) => r.id)).toEqual(rows.map((r) => r.id).reverse())

      const onlyRead = yield* api(s, "GET", `/${id}/recipients?status=read`)
      expect(onlyRead.body.data.map((r: any) => r.to)).toEqual([tos[1]])
      expect(onlyRead.body.counts.read).toBe(1)
      const page = yield* api(s, "GET", `/${id}/recipients?limit=2`)
      expect(page.body).toMatchObject({ has_more: true })
      const rest = yield* api(s, "GET", `/${id}/recipients?limit=10&after=${page.body.next_cursor}`)
      expect(rest.body.data).toHaveLength(3)
    }))

  it.scoped("a cancel during a pass stops it at the next recipient: the one waiting for its throttle slot is sent, the rest stay pending", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-cancel-live")
      const q = yield* sql
      // One send a second: the second recipient waits for its slot on the clock while the broadcast is cancelled.
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${s.chat}`
      const id = yield* sending(s, Array.from({ length: 5 }, () => freshTo()))
      const before = yield* sandboxSends
      const pass = yield* stopDuringSecondSlot(
        api(s, "POST", `/${id}/cancel`).pipe(Effect.map((r) => expect(r.body.status).toBe("draft")))
      )
      expect(pass).toMatchObject({ sent: 2, failed: 0 })
      expect((yield* sandboxSends) - before).toBe(2)
      const rows = yield* recipientRows(id)
      expect(rows.map((r) => r.status)).toEqual(["sent", "sent", "pending", "pending", "pending"])
      expect(rows.every((r) => r.status === "sent" || r.claimed_until === null)).toBe(true)
      expect((yield* broadcastRow(id)).status).toBe("draft")
    }))

  it.scoped("a downgrade to free during a pass stops it at the next recipient: the one waiting for its throttle slot is sent, the rest stay pending and unclaimed", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-downgrade-live")
      const q = yield* sql
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${s.chat}`
      const id = yield* sending(s, Array.from({ length: 5 }, () => freshTo()))
      expect((yield* request("DELETE", `/platform/dashboard/channels/${s.social}`, { cookie: s.dev.cookie })).status).toBe(204)
      const before = yield* sandboxSends
      const pass = yield* stopDuringSecondSlot(setPlan(s.dev, "free").pipe(Effect.map((r) => expect(r.status).toBe(200))))
      expect(pass).toMatchObject({ sent: 2, failed: 0, finished: 0 })
      expect((yield* sandboxSends) - before).toBe(2)
      const rows = yield* recipientRows(id)
      expect(rows.map((r) => r.status)).toEqual(["sent", "sent", "pending", "pending", "pending"])
      expect(rows.every((r) => r.status === "sent" || r.claimed_until === null)).toBe(true)
      expect((yield* broadcastRow(id)).status).toBe("sending")
      // Passes are global: back on lite, the broadcast is stopped so that the other tests' passes do not send it.
      expect((yield* setPlan(s.dev, "lite")).status).toBe(200)
      expect((yield* api(s, "POST", `/${id}/cancel`)).status).toBe(200)
    }))

  it.scoped("a batch slowed past half the 2-minute lease hands its unsent recipients back: they are taken again under a fresh lease, and each is sent once", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-lease")
      const q = yield* sql
      // One send a second: the batch's 63rd recipient is reached 61 s after the claim, past half the lease.
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${s.chat}`
      const id = yield* sending(s, Array.from({ length: 64 }, () => freshTo()))
      const before = yield* sandboxSends
      const t0 = Math.floor(Date.now() / 1000) * 1000
      // Waits (without time passing) until the pass sleeps for the slot at t0 + k s. A finished call leaves its
      // 10-second upstream deadline among the clock's sleeps, so from k = 10 the slot is the second sleep at that time.
      const sleepingUntil = (k: number) =>
        TestClock.sleeps().pipe(
          Effect.tap(() => Effect.yieldNow()),
          Effect.repeat({ until: (at) => Chunk.size(Chunk.filter(at, (when) => when === t0 + k * 1000)) >= (k >= 10 ? 2 : 1) })
        )
      yield* Effect.gen(function*() {
        yield* TestClock.setTime(t0)
        const pass = yield* Effect.fork(runOnce)
        // The k-th send waits for its slot at t0 + k s; the clock is moved to each slot exactly.
        for (let k = 1; k <= 61; k++) {
          yield* sleepingUntil(k)
          yield* TestClock.setTime(t0 + k * 1000)
        }
        // At t0 + 61 s the last two recipients were handed back unsent and claimed again by the same
        // pass, under a lease counted from now: the first claim (to t0 + 120 s) would have run out
        // while they were still being sent, and another worker would have sent them a second time.
        yield* sleepingUntil(62)
        const rows = yield* recipientRows(id)
        expect(rows.slice(0, 62).every((r) => r.status === "sent")).toBe(true)
        expect(rows.slice(62).map((r) => [r.status, r.claimed_until?.getTime()])).toEqual([
          ["pending", t0 + 61_000 + 120_000],
          ["pending", t0 + 61_000 + 120_000]
        ])
        yield* TestClock.setTime(t0 + 62_000)
        yield* sleepingUntil(63)
        yield* TestClock.setTime(t0 + 63_000)
        expect(yield* Fiber.join(pass)).toMatchObject({ sent: 64, failed: 0, finished: 1 })
      }).pipe(Effect.provide(TestContext.TestContext))
      expect((yield* sandboxSends) - before).toBe(64)
      const rows = yield* recipientRows(id)
      expect(new Set(rows.map((r) => r.meta_message_id)).size).toBe(64)
      expect(rows.every((r) => r.status === "sent")).toBe(true)
      expect((yield* broadcastRow(id)).status).toBe("completed")
    }), 120_000)

  it.scoped("a big broadcast on one channel does not hold up another channel's broadcast until its first batches are sent", () =>
    Effect.gen(function*() {
      const big = yield* setup("bcs-fair-big")
      const small = yield* setup("bcs-fair-small")
      const q = yield* sql
      // One send a second: the big broadcast's first 100 recipients take 100 s of clock.
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${big.chat}`
      const bigId = yield* sending(big, Array.from({ length: 150 }, () => freshTo()))
      const smallId = yield* sending(small, [freshTo()])
      const t0 = Math.floor(Date.now() / 1000) * 1000
      let bigSent = 0
      yield* Effect.gen(function*() {
        yield* TestClock.setTime(t0)
        const pass = yield* Effect.fork(runOnce)
        for (let k = 1;; k++) {
          if ((yield* recipientRows(smallId))[0]!.status === "sent") break
          // The big channel's k-th send waits for its slot at t0 + k s (from k = 10 beside an earlier call's deadline).
          yield* TestClock.sleeps().pipe(
            Effect.tap(() => Effect.yieldNow()),
            Effect.repeat({ until: (at) => Chunk.size(Chunk.filter(at, (when) => when === t0 + k * 1000)) >= (k >= 10 ? 2 : 1) })
          )
          yield* TestClock.setTime(t0 + k * 1000)
        }
        bigSent = (yield* recipientRows(bigId)).filter((r) => r.status === "sent").length
        expect((yield* api(big, "POST", `/${bigId}/cancel`)).status).toBe(200)
        yield* TestClock.adjust(Duration.seconds(5))
        yield* Fiber.join(pass)
      }).pipe(Effect.provide(TestContext.TestContext))
      // Sent alongside the big broadcast's first sends, not after its first batch of 100.
      expect(bigSent).toBeLessThan(10)
      expect((yield* broadcastRow(smallId)).status).toBe("completed")
    }), 120_000)

  it.scoped("a broadcast that comes due during a long pass is started by that pass at its next batch, not after the pass", () =>
    Effect.gen(function*() {
      const big = yield* setup("bcs-due-big")
      const later = yield* setup("bcs-due-later")
      const q = yield* sql
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${big.chat}`
      const bigId = yield* sending(big, Array.from({ length: 150 }, () => freshTo()))
      const t0 = Math.floor(Date.now() / 1000) * 1000
      const laterId = yield* draftWith(later, [freshTo()])
      const scheduled = yield* api(later, "POST", `/${laterId}/schedule`, { scheduled_at: new Date(t0 + 5_000).toISOString() })
      expect(scheduled.status, scheduled.text).toBe(200)
      let bigSent = 0
      yield* Effect.gen(function*() {
        yield* TestClock.setTime(t0)
        const pass = yield* Effect.fork(runOnce)
        for (let k = 1;; k++) {
          if ((yield* recipientRows(laterId))[0]!.status === "sent") break
          // The big channel's k-th slot (as above), unless the pass is over.
          const [, over] = yield* Effect.zip(TestClock.sleeps(), Fiber.poll(pass)).pipe(
            Effect.tap(() => Effect.yieldNow()),
            Effect.repeat({
              until: ([at, over]) =>
                over._tag === "Some" || Chunk.size(Chunk.filter(at, (when) => when === t0 + k * 1000)) >= (k >= 10 ? 2 : 1)
            })
          )
          if (over._tag === "Some") break
          yield* TestClock.setTime(t0 + k * 1000)
        }
        bigSent = (yield* recipientRows(bigId)).filter((r) => r.status === "sent").length
        // Stops the big broadcast (passes are global; a 409 when it already completed, without the due one sent).
        yield* api(big, "POST", `/${bigId}/cancel`)
        yield* TestClock.adjust(Duration.seconds(5))
        yield* Fiber.join(pass)
      }).pipe(Effect.provide(TestContext.TestContext))
      // The first batch (100) is handed back at t0 + 61 s; the next one starts and sends the due broadcast.
      expect((yield* recipientRows(laterId))[0]!.status).toBe("sent")
      expect(bigSent).toBeLessThan(100)
      expect((yield* broadcastRow(laterId)).status).toBe("completed")
    }), 120_000)

  it.scoped("the cycle ticks every 30 s on the clock: a scheduled broadcast starts on the first tick at or after scheduled_at", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const to = freshTo()
      const id = yield* draftWith(s, [to])
      const at = new Date(Date.now() + 90_000).toISOString()
      expect((yield* api(s, "POST", `/${id}/schedule`, { scheduled_at: at })).status).toBe(200)
      const before = yield* sandboxSends
      const ticks = yield* SubscriptionRef.make(0)
      const ticked = (n: number) => finishedPasses(ticks, n)

      yield* Effect.gen(function*() {
        yield* TestClock.setTime(Date.now())
        yield* Effect.forkScoped(broadcastSendCycle(ticks))
        yield* ticked(1)
        for (const n of [2, 3]) {
          yield* TestClock.adjust(Duration.seconds(30))
          yield* ticked(n)
          expect((yield* broadcastRow(id)).status, `tick ${n}`).toBe("scheduled")
        }
        yield* TestClock.adjust(Duration.seconds(30))
        yield* ticked(4)
      }).pipe(Effect.provide(TestContext.TestContext))

      expect((yield* sandboxSends) - before).toBe(1)
      const row = yield* broadcastRow(id)
      expect(row.status).toBe("completed")
      expect((yield* recipientRows(id)).map((r) => r.status)).toEqual(["sent"])
    }))

  it.scoped("a broadcast sent while another channel's slow batch is being sent starts on the next tick: its first recipient goes out within 30 s, not after that batch", () =>
    Effect.gen(function*() {
      const slow = yield* setup("bcs-tick-slow")
      const other = yield* setup("bcs-tick-other")
      const q = yield* sql
      // One send a second: the slow channel's batch of 100 takes 100 s of clock (61 s before it hands back the rest).
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${slow.chat}`
      const slowId = yield* sending(slow, Array.from({ length: 100 }, () => freshTo()))
      const t0 = Math.floor(Date.now() / 1000) * 1000
      const ticks = yield* SubscriptionRef.make(0)
      let otherId = 0
      let slowSent = 0
      yield* Effect.gen(function*() {
        const clock = cycleClock(t0, ticks)
        yield* clock.start
        yield* Effect.forkScoped(broadcastSendCycle(ticks))
        while ((yield* clock.next) < 5);
        otherId = yield* sending(other, [freshTo()])
        while ((yield* clock.next) < 30);
        // The clock stands at the second tick: its pass sends the new broadcast and finishes while the first still sends.
        const finished = yield* tickedWhileStill(ticks, 1)
        expect((yield* recipientRows(otherId)).map((r) => r.status), "sent by the tick at t0 + 30 s").toEqual(["sent"])
        expect(finished).toBe(true)
        slowSent = (yield* recipientRows(slowId)).filter((r) => r.status === "sent").length
        // Passes are global: the slow broadcast is stopped, its pass sends the one waiting for its slot and ends.
        expect((yield* api(slow, "POST", `/${slowId}/cancel`)).status).toBe(200)
        yield* TestClock.adjust(Duration.seconds(1))
        expect(yield* tickedWhileStill(ticks, 2), "the first pass finished").toBe(true)
      }).pipe(Effect.provide(TestContext.TestContext))
      expect(slowSent).toBeGreaterThan(25)
      expect(slowSent).toBeLessThan(35)
      expect((yield* broadcastRow(otherId)).status).toBe("completed")
    }), 120_000)

  it.scoped("passes that overlap (ticks while earlier passes still send, on the same channels) send every recipient exactly once", () =>
    Effect.gen(function*() {
      const a = yield* setup("bcs-overlap-a")
      const b = yield* setup("bcs-overlap-b")
      const q = yield* sql
      // One send a second on both channels: passes overlap for minutes of clock and meet on each channel's throttle.
      yield* q`update platform_channels set throughput_per_second = 1 where id = any(${[a.chat, b.chat]}::bigint[])`
      const bigTos = Array.from({ length: 130 }, () => freshTo())
      const bigId = yield* sending(a, bigTos)
      const state = yield* SandboxState
      const from = state.messages.length
      const t0 = Math.floor(Date.now() / 1000) * 1000
      const ticks = yield* SubscriptionRef.make(0)
      const later: Array<{ id: number; tos: Array<string>; at: number }> = []
      let firstDoneAt = 0
      yield* Effect.gen(function*() {
        const clock = cycleClock(t0, ticks)
        yield* clock.start
        yield* Effect.forkScoped(broadcastSendCycle(ticks))
        for (let k = 0; k < 400;) {
          k = yield* clock.next
          if (k === 5 || k === 40 || k === 41) {
            const tos = Array.from({ length: 5 }, () => freshTo())
            later.push({ id: yield* sending(b, tos), tos, at: k })
          }
          if (firstDoneAt === 0 && later.length > 0 && (yield* recipientRows(later[0]!.id)).every((r) => r.status === "sent")) {
            firstDoneAt = k
          }
          const open = yield* q<{ n: number }>`select count(*)::int as n from broadcasts
            where id = any(${[bigId, ...later.map((l) => l.id)]}::bigint[]) and status <> 'completed'`
          if (later.length === 3 && open[0]!.n === 0) break
        }
      }).pipe(Effect.provide(TestContext.TestContext))
      // Sent by the tick after it (t0 + 30 s), in five slots, while the big broadcast was still sending.
      expect(firstDoneAt).toBeGreaterThanOrEqual(30)
      expect(firstDoneAt).toBeLessThan(45)
      const everyTo = [...bigTos, ...later.flatMap((l) => l.tos)]
      const ours = new Set(everyTo)
      expect(state.messages.slice(from).map((m) => m.to).filter((to) => ours.has(to)).sort()).toEqual([...everyTo].sort())
      for (const id of [bigId, ...later.map((l) => l.id)]) {
        const rows = yield* recipientRows(id)
        expect(rows.every((r) => r.status === "sent")).toBe(true)
        expect(new Set(rows.map((r) => r.meta_message_id)).size).toBe(rows.length)
        expect((yield* broadcastRow(id)).status).toBe("completed")
      }
    }), 120_000)

  it.scoped("stopping the cycle interrupts the pass it runs: nothing more is sent, and the recipients it had claimed stay pending under their lease", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcs-stop")
      const q = yield* sql
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${s.chat}`
      const tos = Array.from({ length: 10 }, () => freshTo())
      const id = yield* sending(s, tos)
      const state = yield* SandboxState
      const from = state.messages.length
      const sentTo = () => state.messages.slice(from).map((m) => m.to).filter((to) => tos.includes(to))
      const t0 = Math.floor(Date.now() / 1000) * 1000
      yield* Effect.gen(function*() {
        const ticks = yield* SubscriptionRef.make(0)
        const clock = cycleClock(t0, ticks)
        yield* clock.start
        const cycle = yield* Effect.fork(broadcastSendCycle(ticks))
        while ((yield* clock.next) < 2);
        // Three sent (at t0, t0 + 1 s, t0 + 2 s), the fourth waits for its slot at t0 + 3 s.
        yield* clock.waiting
        yield* Fiber.interrupt(cycle)
        yield* TestClock.adjust(Duration.seconds(10))
        expect(yield* SubscriptionRef.get(ticks)).toBe(0)
      }).pipe(Effect.provide(TestContext.TestContext))
      expect(sentTo()).toEqual(tos.slice(0, 3))
      const rows = yield* recipientRows(id)
      expect(rows.map((r) => r.status)).toEqual([...Array(3).fill("sent"), ...Array(7).fill("pending")])
      // Taken again by any worker once the lease (2 minutes from the claim) runs out: none is lost.
      expect(rows.slice(3).every((r) => r.claimed_until?.getTime() === t0 + 120_000)).toBe(true)
      expect((yield* broadcastRow(id)).status).toBe("sending")
      // Passes are global: stopped so that the other tests' passes do not send it.
      expect((yield* api(s, "POST", `/${id}/cancel`)).status).toBe(200)
    }))
})
