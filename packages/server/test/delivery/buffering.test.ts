import { verify as octokitVerify } from "@octokit/webhooks-methods"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { DeliveryBuffer } from "../../src/delivery/buffer.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import {
  createAccount,
  createSubscription,
  deliveriesOf,
  drainDeliveries,
  TestEngine,
  writeMessageEvent
} from "../support/delivery.js"
import { ENVELOPE_KEYS } from "../support/envelope-form.js"
import { type Received, startReceiver } from "../support/receiver.js"

const headersOf = (r: Received): Record<string, string> =>
  Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v ?? ""]))

const batchTexts = (r: Received) =>
  (JSON.parse(r.body.toString("utf8")) as { events: Array<{ event: string; data: { text: string } }> }).events.map(
    (e) => e.data.text
  )

layer(TestEngine)("buffering (SPEC §6.4)", (it) => {
  it.scoped("envelopes batch per (subscription, event type) by max batch, then by window; batches verify", () =>
    Effect.gen(function*() {
      // Real time: standardwebhooks checks webhook-timestamp against the wall clock.
      yield* TestClock.setTime(Date.now())
      const receiver = yield* startReceiver()
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({
        accountId,
        url: receiver.url,
        eventTypes: ["message.sent", "message.read"],
        bufferWindowSeconds: 10,
        bufferMaxBatch: 3
      })
      for (let i = 0; i < 7; i++) yield* writeMessageEvent({ accountId, channelId, peer: `p${i}`, text: `sent ${i} ✓ ünï` })
      yield* writeMessageEvent({ accountId, channelId, peer: "p", event: "message.read", text: "read 0" })
      const fanOut = yield* FanOut
      const buffer = yield* DeliveryBuffer
      expect(yield* fanOut.runOnce()).toMatchObject({ events: 8, deliveries: 0, buffered: 8 })

      // Two full batches of message.sent go at once; the rest waits for its window.
      expect((yield* buffer.runOnce()).batches).toBe(2)
      yield* drainDeliveries()
      expect(receiver.received.map(batchTexts)).toEqual([
        ["sent 0 ✓ ünï", "sent 1 ✓ ünï", "sent 2 ✓ ünï"],
        ["sent 3 ✓ ünï", "sent 4 ✓ ünï", "sent 5 ✓ ünï"]
      ])

      yield* TestClock.adjust(Duration.millis(9_999))
      expect((yield* buffer.runOnce()).batches).toBe(0)
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* buffer.runOnce()).batches).toBe(2)
      yield* drainDeliveries()
      expect(receiver.received.slice(2).map(batchTexts).sort()).toEqual([["read 0"], ["sent 6 ✓ ünï"]])

      const rows = yield* deliveriesOf(sub.id)
      expect(rows).toHaveLength(4)
      expect(rows.every((r) => r.is_batch && r.status === "delivered" && /^evt_[0-9a-f]{32}$/.test(r.event_id))).toBe(true)
      for (const r of receiver.received) {
        const body = r.body.toString("utf8")
        const h = headersOf(r)
        expect(yield* Effect.promise(() => octokitVerify(sub.secret, body, h["x-platform-signature"]!))).toBe(true)
        expect(new Webhook(sub.secret).verify(body, h))
          .toHaveProperty("events")
        // A batch is its events' stored texts, as a lone delivery would send each: compact, keys in order.
        expect(JSON.stringify(JSON.parse(body))).toBe(body)
        for (const e of JSON.parse(body).events) expect(Object.keys(e)).toEqual(ENVELOPE_KEYS)
      }
    }))

  it.scoped("the window counts from the first envelope of the batch", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2025-06-02T00:00:00.000Z"))
      const receiver = yield* startReceiver()
      const { accountId, channelId } = yield* createAccount()
      yield* createSubscription({ accountId, url: receiver.url, bufferWindowSeconds: 5 })
      const fanOut = yield* FanOut
      const buffer = yield* DeliveryBuffer
      yield* writeMessageEvent({ accountId, channelId, peer: "p", text: "a" })
      yield* fanOut.runOnce()
      yield* TestClock.adjust(Duration.seconds(4))
      yield* writeMessageEvent({ accountId, channelId, peer: "p", text: "b" })
      yield* fanOut.runOnce()
      expect((yield* buffer.runOnce()).nextDueAt).toBe(Date.parse("2025-06-02T00:00:05.000Z"))
      yield* TestClock.adjust(Duration.seconds(1))
      expect((yield* buffer.runOnce()).batches).toBe(1)
      yield* drainDeliveries()
      expect(receiver.received.map(batchTexts)).toEqual([["a", "b"]])
    }))
})
