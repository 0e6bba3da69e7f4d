import { SqlClient } from "@effect/sql"
import { DELIVERY_TIMEOUT_SECONDS, RETRY_DELAYS_MINUTES } from "@platform/shared"
import { expect, layer } from "@effect/vitest"
import { Chunk, Duration, Effect, Schedule, TestClock } from "effect"
import type { ClaimedRow } from "../../src/delivery/claims.js"
import { deliveryEnvelope } from "../../src/outbox/envelope.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { type DirectDispatch, DeliveryWakeup } from "../../src/delivery/wakeup.js"
import { Events } from "../../src/outbox/events.js"
import { deliveryWorkers, FAN_OUT_RETRY } from "../../src/delivery/delivery-workers.js"
import { createAccount, createSubscription, deliveriesOf, TestEngine, writeMessageEvent } from "../support/delivery.js"
import { captureLogs } from "../support/log-capture.js"
import { eventually, type Received, startReceiver } from "../support/receiver.js"

/** A message event without a conversation to wait for (delivered independently). */
const writeUnorderedEvent = (accountId: number, channelId: number, text: string) =>
  Effect.flatMap(Events, (events) =>
    events.write({
      event: "message.sent",
      developer_account_id: accountId,
      platform_channel_id: channelId,
      conversation_peer: null,
      data: {
        message_id: 1,
        conversation_id: 1,
        peer_id: "p",
        direction: "outbound",
        source: "api",
        type: "text",
        text,
        has_media: false,
        media_id: null,
        status: "sent",
        meta_message_id: null
      }
    }))

/**
 * A stand-in for this process's dispatcher with `free` POST slots: the rows it is
 * handed "finish" while fan-out waits for room (never, when stalled).
 */
const fakeDispatcher = (free: number, options: { readonly stalled?: boolean } = {}) => {
  let running = 0
  const started: Array<ClaimedRow> = []
  const probes: Array<readonly [number, string]> = []
  const reserved: Array<number> = []
  const dispatch: DirectDispatch = {
    reserve: (max) => {
      const granted = Math.min(max, free)
      free -= granted
      reserved.push(granted)
      return granted
    },
    start: (rows, _claimedAt, slots) =>
      Effect.sync(() => {
        started.push(...rows)
        running += rows.length
        free += slots - rows.length
      }),
    probe: (pairs) => {
      probes.push(...pairs)
    },
    room: () =>
      Effect.sync(() => {
        if (options.stalled) return 0
        free += running
        running = 0
        return free
      })
  }
  return { dispatch, started, probes, reserved }
}

/** An account with one subscription, and fan-out handing over to a fake dispatcher with `free` slots. */
const withFakeDispatcher = (free: number, options: { readonly stalled?: boolean } = {}) =>
  Effect.gen(function*() {
    const { accountId, channelId } = yield* createAccount()
    const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook" })
    const fake = fakeDispatcher(free, options)
    const wakeup = yield* DeliveryWakeup
    yield* wakeup.registerDirect(fake.dispatch)
    return { accountId, channelId, sub, fake, wakeup, fanOut: yield* FanOut }
  })

/** Whether a pulse taken earlier has fired by now. */
const fired = (pulse: Promise<void>) =>
  Effect.promise(() =>
    Promise.race([pulse.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))])
  )

layer(TestEngine)("fan-out and this process's dispatcher", (it) => {
  it.scoped("fan-out takes only as many unordered events as the dispatcher has room for, all handed over claimed", () =>
    Effect.gen(function*() {
      const { accountId, channelId, fake, fanOut, sub } = yield* withFakeDispatcher(10)
      for (let i = 0; i < 35; i++) yield* writeUnorderedEvent(accountId, channelId, `u${i}`)

      expect(yield* fanOut.drain(500)).toBe(35)
      expect(fake.reserved).toEqual([10, 10, 10, 10])
      expect(fake.started).toHaveLength(35)
      expect(new Set(fake.started.map((r) => r.id)).size).toBe(35)
      const rows = yield* deliveriesOf(sub.id)
      expect(rows).toHaveLength(35)
      expect(rows.every((r) => r.status === "delivering")).toBe(true)
    }))

  it.scoped("rows handed over claimed are the stored rows with their event's envelope; ids follow event, then subscription", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { accountId, channelId } = yield* createAccount()
      const first = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook" })
      const second = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/other" })
      for (let i = 0; i < 4; i++) yield* writeUnorderedEvent(accountId, channelId, `Olá ${i} ✓`)
      const fake = fakeDispatcher(5)
      yield* (yield* DeliveryWakeup).registerDirect(fake.dispatch)

      expect(yield* (yield* FanOut).drain(500)).toBe(4)
      const stored = yield* sql<{
        id: number
        subscription_id: number
        event_id: string
        event_type: string
        status: string
        envelope: string
        version: number
      }>`select d.id, d.subscription_id, d.event_id, d.event_type, d.status, e.envelope::text as envelope,
                (extract(epoch from s.updated_at) * 1000000)::int8 as version
         from webhook_deliveries d join events e on e.event_id = d.event_id
         join webhook_subscriptions s on s.id = d.subscription_id
         where d.subscription_id in (${first.id}, ${second.id}) order by d.id`
      // Ascending ids: each event's rows in subscription order, event after event.
      expect(stored.map((r) => r.subscription_id)).toEqual([first.id, second.id, first.id, second.id, first.id, second.id,
        first.id, second.id])
      expect(stored.map((r) => JSON.parse(r.envelope).data.text)).toEqual(
        ["Olá 0 ✓", "Olá 0 ✓", "Olá 1 ✓", "Olá 1 ✓", "Olá 2 ✓", "Olá 2 ✓", "Olá 3 ✓", "Olá 3 ✓"]
      )
      // Room for 5: the first 5 rows by id are handed over claimed, each with what sending it
      // needs; the other 3 wait pending.
      expect(fake.started.map((r) => r.id)).toEqual(stored.slice(0, 5).map((r) => r.id))
      expect(stored.map((r) => r.status)).toEqual([...Array(5).fill("delivering"), ...Array(3).fill("pending")])
      for (const row of fake.started) {
        const own = stored.find((r) => r.id === row.id)!
        expect(row).toMatchObject({
          id: own.id,
          subscription_id: own.subscription_id,
          event_id: own.event_id,
          event_type: own.event_type,
          conversation_peer: null,
          attempts: 0,
          envelope: own.envelope,
          sub_version: own.version
        })
      }
    }))

  it.scoped("a stalled dispatcher does not hold fan-out back: the rows it has no room for are inserted pending", () =>
    Effect.gen(function*() {
      const { accountId, channelId, fake, fanOut, sub, wakeup } = yield* withFakeDispatcher(10, { stalled: true })
      for (let i = 0; i < 35; i++) yield* writeUnorderedEvent(accountId, channelId, `u${i}`)
      const pulse = wakeup.deliveries.current

      expect(yield* fanOut.drain(500)).toBe(35)
      expect(fake.started).toHaveLength(10)
      const rows = yield* deliveriesOf(sub.id)
      expect(rows.filter((r) => r.status === "delivering")).toHaveLength(10)
      expect(rows.filter((r) => r.status === "pending")).toHaveLength(25)
      // The pending ones are the general claim's: the dispatcher is woken for them.
      expect(yield* fired(pulse)).toBe(true)
    }))

  it.scoped("fan-out names the conversations a batch opens for the dispatcher to probe; later rows wait for their turn", () =>
    Effect.gen(function*() {
      const { accountId, channelId, fake, fanOut, sub, wakeup } = yield* withFakeDispatcher(10)
      for (const peer of ["a", "a", "b"]) yield* writeMessageEvent({ accountId, channelId, peer })
      const pulse = wakeup.deliveries.current
      yield* fanOut.drain()
      expect(fake.probes).toEqual([[sub.id, "a"], [sub.id, "b"]])
      expect(fake.started).toHaveLength(0)
      expect((yield* deliveriesOf(sub.id)).map((r) => r.status)).toEqual(["pending", "pending", "pending"])
      // The dispatcher here was told what to probe; no general claim is needed.
      expect(yield* fired(pulse)).toBe(false)

      for (const peer of ["a", "c"]) yield* writeMessageEvent({ accountId, channelId, peer })
      yield* fanOut.drain()
      expect(fake.probes).toEqual([[sub.id, "a"], [sub.id, "b"], [sub.id, "c"]])
    }))

  it.scoped("after a batch of conversation rows fan-out reserves no POST slot; an unordered row inserted pending paces the next", () =>
    Effect.gen(function*() {
      const { accountId, channelId, fake, fanOut, sub, wakeup } = yield* withFakeDispatcher(10)
      // Rows that wait for their conversation's turn: no slot of this batch's can be used.
      for (const peer of ["a", "b"]) yield* writeMessageEvent({ accountId, channelId, peer })
      yield* fanOut.drain()
      const reservations = fake.reserved.length

      // More of them: the slots stay the claimer's and the recorders' (no reservation).
      for (const peer of ["a", "c"]) yield* writeMessageEvent({ accountId, channelId, peer })
      yield* fanOut.drain()
      expect(fake.reserved).toHaveLength(reservations)

      // An unordered row in such a batch is inserted pending, for the general claim...
      let pulse = wakeup.deliveries.current
      yield* writeUnorderedEvent(accountId, channelId, "u0")
      yield* fanOut.drain()
      expect(fake.reserved).toHaveLength(reservations)
      expect(fake.started).toHaveLength(0)
      expect(yield* fired(pulse)).toBe(true)

      // ...and paces the next batch, which takes slots again and hands its rows over claimed.
      pulse = wakeup.deliveries.current
      yield* writeUnorderedEvent(accountId, channelId, "u1")
      yield* fanOut.drain()
      expect(fake.reserved.slice(reservations)).toEqual([10])
      expect(fake.started.map((r) => JSON.parse(r.envelope!).data.text)).toEqual(["u1"])
      expect(yield* fired(pulse)).toBe(false)

      // A drain that finds nothing to fan out leaves the pacing as it was.
      yield* fanOut.drain()
      yield* writeUnorderedEvent(accountId, channelId, "u2")
      yield* fanOut.drain()
      expect(fake.started.map((r) => JSON.parse(r.envelope!).data.text)).toEqual(["u1", "u2"])
      const rows = yield* deliveriesOf(sub.id)
      expect(rows.map((r) => r.status)).toEqual(
        ["pending", "pending", "pending", "pending", "pending", "delivering", "delivering"]
      )
    }))
})

const textOf = (r: Received) => (JSON.parse(r.body.toString("utf8")) as { data: { text: string } }).data.text

/** Live workers, sweeps out of reach: fan-out hand-over, probes and records alone move every row. */
layer(TestEngine, { excludeTestServices: true })("the dispatch pipeline", (it) => {
  it.scoped("with 4 POST slots, every row is POSTed once, each conversation in order, no sweep needed", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 200, delayMs: 1 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* deliveryWorkers({
        maxInFlight: 4,
        dispatchBatch: 2,
        fanOutSweep: Duration.minutes(5),
        dispatchSweep: Duration.minutes(5)
      })
      const peers = ["p0", "p1", "p2", "p3"]
      for (let i = 0; i < 5; i++) {
        for (const peer of peers) yield* writeMessageEvent({ accountId, channelId, peer, text: `${peer} ${i}` })
        for (let k = 0; k < 3; k++) yield* writeUnorderedEvent(accountId, channelId, `u ${i} ${k}`)
      }
      yield* (yield* DeliveryWakeup).eventsWritten
      yield* receiver.waitFor(35)

      const ids = receiver.received.map((r) => r.headers["x-platform-delivery-id"])
      expect(new Set(ids).size).toBe(35)
      for (const peer of peers) {
        const texts = receiver.received.map(textOf).filter((t) => t.startsWith(`${peer} `))
        expect(texts).toEqual([0, 1, 2, 3, 4].map((i) => `${peer} ${i}`))
      }
      const rows = yield* eventually(Effect.map(deliveriesOf(sub.id), (rows) =>
        rows.length === 35 && rows.every((r) => r.status === "delivered") ? rows : undefined))
      expect(rows.every((r) => r.attempts === 1)).toBe(true)
      expect(receiver.received).toHaveLength(35)
    }), { timeout: 30_000 })

  it.scoped("a failed head holds its conversation back while records hand the other conversations their turns", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((r) => ({ status: textOf(r) === "flaky 0" ? 503 : 200 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) })
      const peers = ["flaky", "a", "b", "c"]
      for (let i = 0; i < 4; i++) {
        for (const peer of peers) yield* writeMessageEvent({ accountId, channelId, peer, text: `${peer} ${i}` })
      }
      yield* (yield* DeliveryWakeup).eventsWritten
      // Every steady row and the flaky head (once); its next rows wait for its retry.
      yield* receiver.waitFor(13)
      const rows = yield* eventually(Effect.map(deliveriesOf(sub.id), (rows) =>
        rows.filter((r) => r.status === "delivered").length === 12 ? rows : undefined))
      const flaky = rows.filter((r) => r.envelope.data.peer_id === "flaky")
      expect(flaky.map((r) => `${r.status}/${r.attempts}`)).toEqual(["pending/1", "pending/0", "pending/0", "pending/0"])
      expect(flaky[0]!.next_retry_at).not.toBeNull()
      for (const peer of ["a", "b", "c"]) {
        expect(receiver.received.map(textOf).filter((t) => t.startsWith(`${peer} `))).toEqual(
          [0, 1, 2, 3].map((i) => `${peer} ${i}`)
        )
      }
      expect(receiver.received.map(textOf).filter((t) => t.startsWith("flaky"))).toEqual(["flaky 0"])
    }), { timeout: 30_000 })

  // Real time: the receiver holds its answer past the 10 s deadline (SPEC §6.3).
  it.scoped("a receiver that does not answer within 10 s: the attempt is recorded at the deadline and retried after 1 minute", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const receiver = yield* startReceiver(() => ({ status: 200, delayMs: DELIVERY_TIMEOUT_SECONDS * 1000 + 2_000 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) })
      yield* writeMessageEvent({ accountId, channelId, peer: "slow" })
      yield* (yield* DeliveryWakeup).eventsWritten
      const [posted] = yield* receiver.waitFor(1)
      const [row] = yield* eventually(
        Effect.map(deliveriesOf(sub.id), (rows) => rows[0]?.attempts === 1 ? rows : undefined),
        15_000
      )
      expect(row).toMatchObject({ status: "pending", attempts: 1, response_status: null, delivered_at: null })
      // The first retry counts from the attempt's end: the deadline, 10 s after the POST.
      const retryAt = posted!.at + DELIVERY_TIMEOUT_SECONDS * 1000 + RETRY_DELAYS_MINUTES[1]! * 60_000
      expect(row!.next_retry_at!.getTime()).toBeGreaterThanOrEqual(retryAt - 100)
      expect(row!.next_retry_at!.getTime()).toBeLessThan(retryAt + 2_000)
      const attempts = yield* sql<{ outcome: string; error: string }>`
        select outcome, error from delivery_attempts where delivery_id = ${row!.id}`
      expect(attempts).toEqual([{ outcome: "failed", error: `no response within ${DELIVERY_TIMEOUT_SECONDS * 1000} ms` }])
      expect(receiver.received).toHaveLength(1)
    }), { timeout: 30_000 })

  it.scoped("a row whose event was deleted is not sent: its attempt fails, with the reason, and waits for its retry", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const receiver = yield* startReceiver()
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      const gone = yield* writeUnorderedEvent(accountId, channelId, "gone")
      const kept = yield* writeUnorderedEvent(accountId, channelId, "kept")
      // Fanned out before any dispatcher runs: both rows wait pending, reading their event's envelope.
      expect((yield* (yield* FanOut).runOnce()).deliveries).toBe(2)
      yield* sql`delete from events where event_id = ${gone.envelope.id}`
      yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) })

      const rows = yield* eventually(Effect.map(deliveriesOf(sub.id), (rows) =>
        rows.length === 2 && rows.every((r) => r.attempts === 1) ? rows : undefined))
      expect(rows.map((r) => [r.event_id, r.status])).toEqual([[gone.envelope.id, "pending"], [kept.envelope.id, "delivered"]])
      const [held] = yield* sql<{ next_retry_at: Date; updated_at: Date }>`
        select next_retry_at, updated_at from webhook_deliveries where id = ${rows[0]!.id}`
      expect(held!.next_retry_at.getTime() - held!.updated_at.getTime()).toBe(60_000)
      const attempts = yield* sql<{ delivery_id: number; error: string }>`
        select delivery_id, error from delivery_attempts where subscription_id = ${sub.id}`
      expect(attempts).toEqual([{ delivery_id: rows[0]!.id, error: `event ${gone.envelope.id} no longer exists` }])
      expect(receiver.received.map(textOf)).toEqual(["kept"])
    }), { timeout: 30_000 })

  it.scoped("a batch of recorded outcomes writes every column of every row, a row per failed attempt and the attempts counted", () =>
    Effect.gen(function*() {
      const long = "é".repeat(300) // 600 bytes: the snippet keeps the first 512
      const receiver = yield* startReceiver((r) =>
        textOf(r).endsWith("ok") ? { status: 200, body: long } : { status: 503, body: "busy" }
      )
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) })
      for (let i = 0; i < 20; i++) yield* writeUnorderedEvent(accountId, channelId, `${i} ${i % 3 === 0 ? "fail" : "ok"}`)
      yield* (yield* DeliveryWakeup).eventsWritten
      yield* receiver.waitFor(20)

      const sql = yield* SqlClient.SqlClient
      const rows = yield* eventually(
        sql<{
          id: number
          text: string
          status: string
          attempts: number
          response_status: number | null
          response_body_snippet: string | null
          latency_ms: number | null
          last_error: string | null
          delivered_at: Date | null
          delivering_since: Date | null
          next_retry_at: Date | null
          updated_at: Date
        }>`select d.*, ${sql.literal(deliveryEnvelope("d"))}->'data'->>'text' as text from webhook_deliveries d
           where subscription_id = ${sub.id} order by id`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length === 20 && rows.every((r) => r.attempts === 1) ? rows : undefined)
        )
      )
      for (const row of rows) {
        const ok = row.text.endsWith("ok")
        expect(row).toMatchObject({
          status: ok ? "delivered" : "pending",
          response_status: ok ? 200 : 503,
          response_body_snippet: ok ? "é".repeat(256) : "busy",
          last_error: ok ? null : "HTTP 503",
          delivering_since: null
        })
        expect(row.latency_ms).toBeGreaterThanOrEqual(0)
        if (ok) {
          expect(row.delivered_at).not.toBeNull()
          expect(row.next_retry_at).toBeNull()
        } else {
          expect(row.delivered_at).toBeNull()
          expect(row.next_retry_at!.getTime() - row.updated_at.getTime()).toBe(60_000)
        }
      }
      // A failed attempt keeps its own row (its error); a delivered one is its delivery row.
      const failing = rows.filter((r) => !r.text.endsWith("ok"))
      const attempts = yield* sql<{
        delivery_id: number
        subscription_id: number
        attempt: number
        outcome: string
        response_status: number | null
        latency_ms: number | null
        error: string | null
      }>`select * from delivery_attempts where subscription_id = ${sub.id} order by delivery_id`
      expect(attempts.map((a) => a.delivery_id)).toEqual(failing.map((r) => r.id))
      attempts.forEach((a, i) => {
        expect(a).toMatchObject({
          attempt: 1,
          outcome: "failed",
          response_status: 503,
          latency_ms: failing[i]!.latency_ms,
          error: "HTTP 503"
        })
      })
      // Auto-pause's counts: every attempt, every failure, whatever the batches were.
      const [counted] = yield* sql<{ attempts: number; failures: number }>`
        select sum(attempts)::int as attempts, sum(failures)::int as failures
        from delivery_attempt_counts where subscription_id = ${sub.id}`
      expect(counted).toEqual({ attempts: 20, failures: failing.length })
      // A subscription deleted takes its deliveries and their attempts with it.
      yield* sql`delete from webhook_subscriptions where id = ${sub.id}`
      const [left] = yield* sql<{ deliveries: number; attempts: number; counts: number }>`
        select (select count(*) from webhook_deliveries where subscription_id = ${sub.id})::int as deliveries,
               (select count(*) from delivery_attempts where subscription_id = ${sub.id})::int as attempts,
               (select count(*) from delivery_attempt_counts where subscription_id = ${sub.id})::int as counts`
      expect(left).toEqual({ deliveries: 0, attempts: 0, counts: 0 })
    }), { timeout: 30_000 })
})

layer(TestEngine)("fan-out failures", (it) => {
  it.scoped("a failing fan-out waits 250 ms, then twice as long after each further failure, and goes on once the database answers", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook" })
      // Every fan-out statement fails while this trigger is there.
      yield* sql`create function outbox_refuses() returns trigger language plpgsql as $$
        begin raise exception 'outbox unavailable'; end $$`
      yield* sql`create trigger outbox_refuses before delete on event_outbox
        for each statement execute function outbox_refuses()`
      const logs = captureLogs()
      yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) }).pipe(
        Effect.provide(logs.layer)
      )
      const failures = () => logs.lines.filter((l) => l.message === "fan-out failed; retrying").length
      /** Waits until fan-out has failed `n` times and sleeps `ms` before its next pass. */
      const failedAndWaiting = (n: number, ms: number) =>
        eventually(Effect.gen(function*() {
          const now = yield* TestClock.currentTimeMillis
          const sleeps = Chunk.toReadonlyArray(yield* TestClock.sleeps())
          return failures() >= n && sleeps.includes(now + ms) ? true : undefined
        }))

      yield* writeUnorderedEvent(accountId, channelId, "held back")
      yield* (yield* DeliveryWakeup).eventsWritten
      yield* failedAndWaiting(1, 250)
      expect(failures()).toBe(1)
      yield* TestClock.adjust(Duration.millis(250))
      yield* failedAndWaiting(2, 500)
      expect(failures()).toBe(2)
      expect(yield* deliveriesOf(sub.id)).toHaveLength(0)

      yield* sql`drop trigger outbox_refuses on event_outbox`
      yield* TestClock.adjust(Duration.millis(500))
      const rows = yield* eventually(Effect.map(deliveriesOf(sub.id), (rows) => rows.length === 1 ? rows : undefined))
      expect(rows[0]!.envelope.data.text).toBe("held back")
      // Fan-out leaves the envelope in the event row; the delivery row reads it from there.
      expect(rows[0]!.own_envelope).toBeNull()
      expect(failures()).toBe(2)
    }))

  it.effect("the wait doubles from 250 ms up to 10 s", () =>
    Effect.gen(function*() {
      const delays = yield* Schedule.run(Schedule.delays(FAN_OUT_RETRY), 0, Array.from({ length: 20 }, (_, i) => i))
      expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => Duration.toMillis(Chunk.unsafeGet(delays, n - 1))))
        .toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000])
    }))
})
