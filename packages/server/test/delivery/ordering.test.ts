import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { Dispatcher } from "../../src/delivery/dispatcher.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { DeliveryWakeup } from "../../src/delivery/wakeup.js"
import { deliveryWorkers } from "../../src/delivery/delivery-workers.js"
import {
  createAccount,
  createSubscription,
  deliveriesOf,
  drainDeliveries,
  TestEngine,
  writeMessageEvent
} from "../support/delivery.js"
import { eventually, type Received, startReceiver } from "../support/receiver.js"

const textOf = (r: Received) => (JSON.parse(r.body.toString("utf8")) as { data: { peer_id: string; text: string } }).data

/** A deterministic "random" 5xx generator (mulberry32), so a failure is reproducible. */
const seeded = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

layer(TestEngine)("per-(subscription, conversation_peer) ordering (SPEC §6.4)", (it) => {
  it.scoped("with random 5xx on one peer, n+1 is never sent before n finished and other peers are not blocked", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-04-01T00:00:00.000Z"))
      const random = seeded(7)
      const outcome = new Map<number, number>()
      const receiver = yield* startReceiver((r) => {
        const data = textOf(r)
        // The head of the flaky peer always fails once, then 5xx at random.
        const status = data.peer_id === "flaky" && (data.text === "flaky 0" && !outcome.has(r.n - 1) ? true : random() < 0.5)
          ? 503
          : 200
        outcome.set(r.n, status)
        return { status }
      })
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      const peers = ["flaky", "steady-a", "steady-b"]
      const perPeer = 8
      for (let i = 0; i < perPeer; i++) {
        for (const peer of peers) yield* writeMessageEvent({ accountId, channelId, peer, text: `${peer} ${i}` })
      }
      yield* (yield* FanOut).runOnce()

      // Without any clock movement, the steady peers drain completely while the
      // flaky head waits for its retry.
      yield* drainDeliveries()
      const steady = receiver.received.filter((r) => textOf(r).peer_id !== "flaky")
      expect(steady).toHaveLength(2 * perPeer)
      const flakyRows = (yield* deliveriesOf(sub.id)).filter((d) => d.envelope.data.peer_id === "flaky")
      expect(flakyRows.filter((d) => d.status === "delivered")).toHaveLength(0)

      // Then let the clock run until the flaky peer is done.
      for (let step = 0; step < 400; step++) {
        const rows = yield* deliveriesOf(sub.id)
        if (rows.every((d) => d.status === "delivered" || d.status === "failed")) break
        yield* TestClock.adjust(Duration.minutes(1))
        yield* drainDeliveries()
      }
      const final = yield* deliveriesOf(sub.id)
      expect(final.every((d) => d.status === "delivered" || d.status === "failed")).toBe(true)

      // Order check on the flaky peer: once message i+1 has been sent, message i
      // must already have finished (2xx, or its 5th failure).
      const flaky = receiver.received.filter((r) => textOf(r).peer_id === "flaky")
      expect(flaky.some((r) => outcome.get(r.n) === 503)).toBe(true)
      const finishedAt = new Map<number, number>()
      const attempts = new Map<number, number>()
      for (const r of flaky) {
        const index = Number(textOf(r).text.split(" ")[1])
        for (let j = 0; j < index; j++) expect(finishedAt.has(j), `message ${index} sent before ${j} finished`).toBe(true)
        const n = (attempts.get(index) ?? 0) + 1
        attempts.set(index, n)
        if (outcome.get(r.n) === 200 || n === 5) finishedAt.set(index, r.n)
      }
      expect(finishedAt.size).toBe(perPeer)
    }))

  it.scoped("a delivery stuck in delivering for more than 30 s releases the next one of its peer", () =>
    Effect.gen(function*() {
      const t0 = Date.parse("2025-04-02T00:00:00.000Z")
      yield* TestClock.setTime(t0)
      const receiver = yield* startReceiver()
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      yield* writeMessageEvent({ accountId, channelId, peer: "p", text: "first" })
      yield* writeMessageEvent({ accountId, channelId, peer: "p", text: "second" })
      yield* (yield* FanOut).runOnce()
      const [first, second] = yield* deliveriesOf(sub.id)
      // A dispatcher claimed the first row and then vanished (crash, hang).
      const sql = yield* SqlClient.SqlClient
      yield* sql`update webhook_deliveries set status = 'delivering', delivering_since = ${new Date(t0)}
        where id = ${first!.id}`
      expect((yield* drainDeliveries()).attempts).toBe(0)
      yield* TestClock.adjust(Duration.seconds(30))
      expect((yield* drainDeliveries()).attempts).toBe(0)
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* drainDeliveries()).attempts).toBe(1)
      const rows = yield* deliveriesOf(sub.id)
      expect(rows.find((r) => r.id === second!.id)!.status).toBe("delivered")
      expect(rows.find((r) => r.id === first!.id)!.status).toBe("delivering")
      // The expired lease itself is taken again by the reclaimer.
      expect((yield* (yield* Dispatcher).reclaimExpired()).claimed).toBe(1)
      expect((yield* deliveriesOf(sub.id)).every((r) => r.status === "delivered")).toBe(true)
      expect(receiver.received.map((r) => textOf(r).text)).toEqual(["second", "first"])
    }))

  it.scoped("channel.* and conversation.* events are not serialized", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-04-03T00:00:00.000Z"))
      const receiver = yield* startReceiver(() => ({ status: 500 }))
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url, eventTypes: ["conversation.ended"] })
      const sql = yield* SqlClient.SqlClient
      for (let i = 0; i < 3; i++) {
        yield* sql`insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope)
          values (${`evt_${String(i).padStart(32, "0")}`}, ${accountId}, ${channelId}, 'conversation.ended', 'peer',
                  ${JSON.stringify({ id: `evt_${String(i).padStart(32, "0")}`, event: "conversation.ended", data: {} })}::jsonb)`
      }
      yield* (yield* FanOut).runOnce()
      expect((yield* drainDeliveries()).attempts).toBe(3)
      expect((yield* deliveriesOf(sub.id)).every((d) => d.attempts === 1)).toBe(true)
    }))
})

/** Live workers: wake-ups alone (no sweep in reach) carry an event to the receiver. */
layer(TestEngine, { excludeTestServices: true })(
  "delivery workers",
  (it) => {
    it.scoped("an event written and announced is delivered by the running workers within milliseconds", () =>
      Effect.gen(function*() {
        const receiver = yield* startReceiver()
        const { accountId, channelId } = yield* createAccount()
        const sub = yield* createSubscription({ accountId, url: receiver.url })
        yield* deliveryWorkers({ fanOutSweep: Duration.minutes(5), dispatchSweep: Duration.minutes(5) })
        const wakeup = yield* DeliveryWakeup
        const started = Date.now()
        yield* writeMessageEvent({ accountId, channelId, peer: "p" })
        yield* wakeup.eventsWritten
        yield* receiver.waitFor(1)
        expect(Date.now() - started).toBeLessThan(2000)
        const rows = yield* eventually(
          Effect.map(deliveriesOf(sub.id), (rows) => rows.length > 0 && rows.every((r) => r.status === "delivered") ? rows : undefined)
        )
        expect(rows).toHaveLength(1)
      }))
  }
)

