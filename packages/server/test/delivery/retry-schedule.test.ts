import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { RETRY_DELAYS_MINUTES } from "@platform/shared"
import { Duration, Effect, TestClock } from "effect"
import { FanOut } from "../../src/delivery/fan-out.js"
import {
  createAccount,
  createSubscription,
  deliveriesOf,
  drainDeliveries,
  TestEngine,
  writeMessageEvent
} from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"

layer(TestEngine)("retry schedule (SPEC §6.3)", (it) => {
  it.scoped("a failing delivery is retried after exactly 1, 5, 30 and 120 minutes, then failed", () =>
    Effect.gen(function*() {
      const t0 = Date.parse("2025-03-01T12:00:00.000Z")
      yield* TestClock.setTime(t0)
      const receiver = yield* startReceiver(() => ({ status: 503, body: "busy" }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      const event = yield* writeMessageEvent({ accountId, channelId, peer: "p1" })
      const fanOut = yield* FanOut
      expect((yield* fanOut.runOnce()).deliveries).toBe(1)

      expect((yield* drainDeliveries()).attempts).toBe(1)
      let elapsed = 0
      for (let attempt = 2; attempt <= 5; attempt++) {
        const [row] = yield* deliveriesOf(sub.id)
        const delay = RETRY_DELAYS_MINUTES[attempt - 1]! * 60_000
        expect(row!.status).toBe("pending")
        expect(row!.attempts).toBe(attempt - 1)
        expect(row!.next_retry_at!.getTime()).toBe(t0 + elapsed + delay)
        // One millisecond early: nothing is due.
        yield* TestClock.adjust(Duration.millis(delay - 1))
        expect((yield* drainDeliveries()).attempts).toBe(0)
        yield* TestClock.adjust(Duration.millis(1))
        expect((yield* drainDeliveries()).attempts).toBe(1)
        elapsed += delay
      }
      const [last] = yield* deliveriesOf(sub.id)
      expect(last).toMatchObject({ status: "failed", attempts: 5, next_retry_at: null, response_status: 503 })
      yield* TestClock.adjust(Duration.hours(24))
      expect((yield* drainDeliveries()).attempts).toBe(0)

      expect(receiver.received).toHaveLength(5)
      for (const r of receiver.received) {
        expect(r.headers["x-platform-event-id"]).toBe(event.envelope.id)
        expect(r.headers["x-platform-delivery-id"]).toBe(String(last!.id))
        expect(r.headers["webhook-id"]).toBe(event.envelope.id)
      }
      const sql = yield* SqlClient.SqlClient
      const attempts = yield* sql<{ attempt: number; outcome: string; response_status: number; created_at: Date }>`
        select attempt, outcome, response_status, created_at from delivery_attempts
        where delivery_id = ${last!.id} order by attempt`
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5])
      expect(attempts.every((a) => a.outcome === "failed" && a.response_status === 503)).toBe(true)
      expect(attempts.map((a) => (a.created_at.getTime() - t0) / 60_000)).toEqual([0, 1, 6, 36, 156])
    }))

  it.scoped("a 2xx on a retry delivers and stops the schedule", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-03-02T12:00:00.000Z"))
      const receiver = yield* startReceiver((r) => ({ status: r.n === 1 ? 500 : 204 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* writeMessageEvent({ accountId, channelId, peer: "p1" })
      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      yield* TestClock.adjust(Duration.minutes(1))
      yield* drainDeliveries()
      const [row] = yield* deliveriesOf(sub.id)
      expect(row).toMatchObject({ status: "delivered", attempts: 2, next_retry_at: null, response_status: 204 })
      expect(row!.delivered_at!.toISOString()).toBe("2025-03-02T12:01:00.000Z")
    }))
})
