import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Dispatcher } from "../../src/delivery/dispatcher.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { createAccount, createSubscription, deliveriesOf, TestEngine, writeMessageEvent } from "../support/delivery.js"
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
        for (let i = 0; i < c.total; i++) yield* writeMessageEvent({ accountId, channelId, peer: `p${i}`, text: String(i) })
        yield* (yield* FanOut).runOnce()
        yield* (yield* Dispatcher).runOnce()
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
      yield* (yield* Dispatcher).runOnce()
      yield* TestClock.adjust("16 minutes")
      for (let i = 0; i < 10; i++) yield* writeMessageEvent({ accountId, channelId, peer: `b${i}`, text: String(i) })
      yield* (yield* FanOut).runOnce()
      // 10 new first attempts + the 10 old rows' second attempts are due: only the
      // 20 attempts of this window count, all failed: paused.
      yield* (yield* Dispatcher).runOnce()
      expect((yield* subscriptionState(sub.id)).is_paused).toBe(true)
      const sql = yield* SqlClient.SqlClient
      const [r] = yield* sql<{ n: number }>`select count(*)::int as n from delivery_attempts where subscription_id = ${sub.id}`
      expect(r!.n).toBe(30)
    }))

  it.scoped("a receiver answering 410 Gone disables the subscription with a reason", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 410 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* writeMessageEvent({ accountId, channelId, peer: "p" })
      yield* (yield* FanOut).runOnce()
      yield* (yield* Dispatcher).runOnce()
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
