import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { AutoPause } from "../../src/delivery/auto-pause.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { deliveryWorkers } from "../../src/delivery/delivery-workers.js"
import {
  createAccount,
  createSubscription,
  deliveriesOf,
  drainDeliveries,
  TestEngine,
  writeMessageEvent
} from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"

const subscriptionState = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ is_active: boolean; is_paused: boolean; paused_reason: string | null; failure_count: number }>`
      select is_active, is_paused, paused_reason, failure_count from webhook_subscriptions where id = ${id}`
  ).pipe(Effect.map(([row]) => row!), Effect.orDie)

const cases = [
  { failures: 17, total: 20, paused: true },
  { failures: 16, total: 20, paused: false },
  { failures: 19, total: 19, paused: false },
  { failures: 20, total: 20, paused: true }
] as const

layer(TestEngine)("auto-pause (SPEC §3.4)", (it) => {
  for (const c of cases) {
    it.scoped(`${c.failures}/${c.total} failed deliveries in 15 minutes ${c.paused ? "pause" : "do not pause"}`, () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2025-05-01T00:00:00.000Z"))
        const receiver = yield* startReceiver((r) => {
          const index = Number((JSON.parse(r.body.toString()) as { data: { text: string } }).data.text)
          return { status: index < c.failures ? 500 : 200 }
        })
        const { accountId, channelId } = yield* createAccount()
        const sub = yield* createSubscription({ accountId, url: receiver.url })
        const deliver = (indexes: ReadonlyArray<number>) =>
          Effect.gen(function*() {
            for (const i of indexes) yield* writeMessageEvent({ accountId, channelId, peer: `p${i}`, text: String(i) })
            yield* (yield* FanOut).runOnce()
            yield* drainDeliveries()
          })
        // The pump records outcomes as they settle, and only a record with failures runs the
        // check (auto-pause.ts): the successes go first, so the check after the last
        // failure sees the whole window.
        const indexes = Array.from({ length: c.total }, (_, i) => i)
        yield* deliver(indexes.filter((i) => i >= c.failures))
        yield* deliver(indexes.filter((i) => i < c.failures))
        expect(receiver.received).toHaveLength(c.total)
        const state = yield* subscriptionState(sub.id)
        expect(state.is_paused).toBe(c.paused)
        expect(state.paused_reason).toBe(c.paused ? "auto_paused_high_failure_rate" : null)

        // The emitter skips a paused subscription; an unpaused one still gets events.
        yield* writeMessageEvent({ accountId, channelId, peer: "after" })
        yield* (yield* FanOut).runOnce()
        expect((yield* deliveriesOf(sub.id)).length).toBe(c.total + (c.paused ? 0 : 1))
      }))
  }

  it.scoped("attempts older than 15 minutes do not count", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-05-02T00:00:00.000Z"))
      const receiver = yield* startReceiver(() => ({ status: 500 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      for (let i = 0; i < 10; i++) yield* writeMessageEvent({ accountId, channelId, peer: `a${i}`, text: String(i) })
      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      yield* TestClock.adjust("16 minutes")
      for (let i = 0; i < 10; i++) yield* writeMessageEvent({ accountId, channelId, peer: `b${i}`, text: String(i) })
      yield* (yield* FanOut).runOnce()
      // 10 new first attempts + the 10 old rows' second attempts are due: only the
      // 20 attempts of this window count, all failed: paused.
      yield* drainDeliveries()
      expect((yield* subscriptionState(sub.id)).is_paused).toBe(true)
      const sql = yield* SqlClient.SqlClient
      const [r] = yield* sql<{ rows: number; counted: number }>`
        select (select count(*) from delivery_attempts where subscription_id = ${sub.id})::int as rows,
               (select sum(attempts) from delivery_attempt_counts where subscription_id = ${sub.id})::int as counted`
      expect(r).toEqual({ rows: 30, counted: 30 })
    }))

  it.scoped("the window sums the counts of the last 15 minutes only, and the prune deletes the older ones", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const autoPause = yield* AutoPause
      const { accountId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook" })
      const now = new Date("2025-05-03T12:00:00.000Z")
      const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000)
      const count = (when: Date, attempts: number, failures: number) =>
        sql`insert into delivery_attempt_counts (subscription_id, created_at, attempts, failures)
            values (${sub.id}, ${when}, ${attempts}, ${failures})`
      // 20 of 20 failed 16 minutes ago, 5 of 5 a minute ago: only 5 attempts are in the window.
      yield* count(at(16), 20, 20)
      yield* count(at(15), 20, 20) // exactly 15 minutes old: out of the window
      yield* count(at(1), 5, 5)
      expect(yield* autoPause.evaluate([sub.id], now)).toEqual([])
      expect((yield* subscriptionState(sub.id)).is_paused).toBe(false)
      // 12 of 15 more now: 17 failures in 20 attempts within the window.
      yield* count(now, 15, 12)
      expect(yield* autoPause.evaluate([sub.id], now)).toEqual([sub.id])
      expect(yield* subscriptionState(sub.id)).toMatchObject({ is_paused: true, paused_reason: "auto_paused_high_failure_rate" })

      // Other tests' counts (other subscriptions, earlier clocks) may go with them: only this subscription's are checked.
      yield* autoPause.prune(now)
      const left = yield* sql<{ created_at: Date }>`
        select created_at from delivery_attempt_counts where subscription_id = ${sub.id} order by created_at`
      expect(left.map((r) => r.created_at.toISOString())).toEqual([at(1).toISOString(), now.toISOString()])
    }))

  it.scoped("the delivery workers prune the counts every minute, once they are out of the window", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-05-04T00:00:00.000Z"))
      const sql = yield* SqlClient.SqlClient
      const { accountId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook" })
      yield* sql`insert into delivery_attempt_counts (subscription_id, created_at, attempts, failures)
                 values (${sub.id}, ${new Date(yield* TestClock.currentTimeMillis)}, 3, 1)`
      const left = sql<{ n: number }>`
        select count(*)::int as n from delivery_attempt_counts where subscription_id = ${sub.id}`.pipe(
        Effect.orDie,
        Effect.map(([r]) => r!.n)
      )
      yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) })
      // The prune ran every minute up to 14 minutes: the row is still in the window.
      yield* TestClock.adjust(Duration.minutes(14))
      expect(yield* left).toBe(1)
      // Past 15 minutes the next run deletes it. A run still busy with its statement when
      // the clock moves schedules its next one from there: the clock goes on a minute at
      // a time, up to 3, each given a second to show the row gone.
      let remaining = 1
      for (let minute = 0; minute < 3 && remaining > 0; minute++) {
        yield* TestClock.adjust(Duration.minutes(1))
        for (let poll = 0; poll < 100 && remaining > 0; poll++) {
          remaining = yield* left
          if (remaining > 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
        }
      }
      expect(remaining).toBe(0)
    }))

  it.scoped("a receiver answering 410 Gone disables the subscription with a reason", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 410 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* writeMessageEvent({ accountId, channelId, peer: "p" })
      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      expect(yield* subscriptionState(sub.id)).toMatchObject({
        is_active: false,
        is_paused: false,
        paused_reason: "receiver_gone_410",
        failure_count: 1
      })
      yield* writeMessageEvent({ accountId, channelId, peer: "p" })
      yield* (yield* FanOut).runOnce()
      expect(yield* deliveriesOf(sub.id)).toHaveLength(1)
    }))
})
