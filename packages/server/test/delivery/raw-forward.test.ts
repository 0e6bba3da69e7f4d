import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { RAW_FORWARD_DEAD_LETTER_DELAY_MINUTES } from "@platform/shared"
import { verifyRawForward } from "@platform/webhook-verify"
import { Effect, Fiber, TestClock, TestContext } from "effect"
import { RawForward } from "../../src/delivery/raw-forward.js"
import { metaJsonStringify } from "../../src/upstream/hub-signature.js"
import { inboundText, messagesChange, statusCallback, textMessage, waEnvelope, wamid } from "../fixtures/meta/inbound.js"
import { startReceiver } from "../support/receiver.js"
import { createChannel, postInbound, TestInbound } from "../inbound/support.js"

interface DeliveryRow {
  id: number
  status: string
  attempts: number
  next_retry_at: Date
  response_status: number | null
  response_body_snippet: string | null
  last_error: string | null
  body: string
}

const deliveriesOf = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<DeliveryRow>`select * from platform_deliveries where platform_channel_id = ${channelId} order by id`.pipe(Effect.orDie))

/** Waits (real time) until the channel's first delivery satisfies `done`. */
const settle = (channelId: number, done: (r: DeliveryRow) => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const rows = yield* deliveriesOf(channelId)
      if (rows[0] !== undefined && done(rows[0])) return rows[0]
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
    }
    throw new Error("delivery did not settle")
  })

const BIG = "123456789012345678901234567890"

/** A text message whose wire body carries non-ASCII, emoji, Arabic, Japanese, escapes and a big integer. */
const richPayload = (line: { waba_id: string; phone_number_id: string }) => {
  const payload = waEnvelope([{
    id: line.waba_id,
    changes: [messagesChange(line, {
      contacts: [{ profile: { name: "Zoë 山田 محمد" }, wa_id: "5511987654321" }],
      messages: [{
        ...textMessage("5511987654321", "Olá 😀 مرحبا こんにちは \"aspas\" \\barra\\ /caminho\ttab"),
        referral: { source_id: "__BIG__", price: "__DEC__" }
      }]
    })]
  }])
  const wire = metaJsonStringify(payload).replace(`"__BIG__"`, BIG).replace(`"__DEC__"`, "19.90")
  const compact = JSON.stringify(payload).replace(`"__BIG__"`, BIG).replace(`"__DEC__"`, "19.90")
  return { payload, wire, compact }
}

layer(TestInbound(), { excludeTestServices: true })("raw forward", (it) => {
  it.scoped("the receiver gets the byte-exact compact body, signed with the channel secret, with the row id", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const ch = yield* createChannel({ webhookUrl: receiver.url, webhookSecret: "whsec_raw_forward_secret" })
      const { payload, wire, compact } = richPayload(ch.line)
      const res = yield* postInbound(payload, { body: wire })
      expect(res.body).toEqual({ status: "platform", forwarded: true })
      const [got] = yield* receiver.waitFor(1)
      expect(got!.body.toString("utf8")).toBe(compact)
      expect(got!.body.toString("utf8")).toContain(BIG)
      const [row] = yield* settle(ch.channelId, (r) => r.status === "delivered").pipe(Effect.map((r) => [r]))
      expect(got!.headers["x-platform-delivery-id"]).toBe(String(row!.id))
      expect(got!.headers["content-type"]).toBe("application/json")
      expect(got!.headers["user-agent"]).toBe("Service-Platform/1.0")
      expect(got!.headers["x-hub-signature-256"]).toBeUndefined()
      const verified = yield* Effect.promise(() =>
        verifyRawForward("whsec_raw_forward_secret", got!.body, got!.headers["x-platform-signature"] as string))
      expect(verified.ok).toBe(true)
      expect(row).toMatchObject({ attempts: 1, response_status: 200, response_body_snippet: "ok" })
    }))

  it.scoped("a channel without a secret gets unsigned deliveries; each channel of a batched POST only its own entry", () =>
    Effect.gen(function*() {
      const ra = yield* startReceiver()
      const rb = yield* startReceiver()
      const a = yield* createChannel({ webhookUrl: ra.url })
      const b = yield* createChannel({ webhookUrl: rb.url, webhookSecret: "s" })
      const entryA = { id: a.line.waba_id, changes: [messagesChange(a.line, { messages: [textMessage("5511900000001", "só A ✔")] })] }
      const entryB = { id: b.line.waba_id, changes: [messagesChange(b.line, { messages: [textMessage("5511900000002", "só B ✔")] })] }
      expect((yield* postInbound(waEnvelope([entryA, entryB]))).status).toBe(200)
      const [gotA] = yield* ra.waitFor(1)
      const [gotB] = yield* rb.waitFor(1)
      expect(gotA!.body.toString()).toBe(JSON.stringify(waEnvelope([entryA])))
      expect(gotB!.body.toString()).toBe(JSON.stringify(waEnvelope([entryB])))
      expect(gotA!.headers["x-platform-signature"]).toBeUndefined()
      expect(gotB!.headers["x-platform-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/)
    }))

  it.scoped("duplicate POSTs create one raw-forward row", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const ch = yield* createChannel({ webhookUrl: receiver.url })
      const payload = inboundText(ch.line, "5511900000003", "duplicada")
      for (let i = 0; i < 3; i++) expect((yield* postInbound(payload)).status).toBe(200)
      yield* settle(ch.channelId, (r) => r.status === "delivered")
      expect(yield* deliveriesOf(ch.channelId)).toHaveLength(1)
      const [count] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number }>`select count(*)::int as n from events where platform_channel_id = ${ch.channelId} and event_type = 'message.received'`)
      expect(count!.n).toBe(1)
    }))

  it.scoped("at the quota cap no row is created for the refused message; status callbacks are still forwarded", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const ch = yield* createChannel({ plan: "free", webhookUrl: receiver.url })
      const sql = yield* SqlClient.SqlClient
      yield* sql`insert into usage_counters (developer_account_id, period, metric, used)
        values (${ch.accountId}, date_trunc('month', now() at time zone 'utc')::date, 'inbound_messages', 1000)`
      const over = yield* postInbound(inboundText(ch.line, "5511900000004", "acima do limite"))
      expect(over.body).toEqual({ status: "platform", forwarded: false, reason: "inbound_quota_exceeded" })
      expect(yield* deliveriesOf(ch.channelId)).toHaveLength(0)
      const status = yield* postInbound(statusCallback(ch.line, wamid(), "delivered"))
      expect(status.body).toEqual({ status: "platform", forwarded: true })
      yield* receiver.waitFor(1)
      expect(yield* deliveriesOf(ch.channelId)).toHaveLength(1)
    }))

  it.scoped("a 500 schedules the retry at +1 min, then 5, 30, 120; the 5th failure is final, with one delivery id", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 500, body: "boom" }))
      const ch = yield* createChannel({ webhookUrl: receiver.url })
      expect((yield* postInbound(inboundText(ch.line, "5511900000005", "vai falhar"))).status).toBe(200)
      const first = yield* settle(ch.channelId, (r) => r.attempts === 1)
      expect(first).toMatchObject({ status: "pending", response_status: 500, response_body_snippet: "boom", last_error: "HTTP 500" })
      const rawForward = yield* RawForward
      let due = first.next_retry_at.getTime()
      yield* Effect.gen(function*() {
        // The schedule is checked on the TestClock: not a minute early, then exactly on time.
        yield* TestClock.setTime(due - 1_000)
        expect(yield* rawForward.sweepOnce()).toBe(0)
        for (const [attempt, nextMinutes] of [[2, 5], [3, 30], [4, 120], [5, null]] as const) {
          yield* TestClock.setTime(due)
          expect(yield* rawForward.sweepOnce()).toBe(1)
          const [row] = yield* deliveriesOf(ch.channelId)
          expect(row!.attempts).toBe(attempt)
          if (nextMinutes === null) {
            expect(row!.status).toBe("failed")
            // SPEC §6.5: a 360-minute delay is stated at dead-letter (no worker takes a failed row).
            expect(row!.next_retry_at.getTime()).toBe(due + RAW_FORWARD_DEAD_LETTER_DELAY_MINUTES * 60_000)
          } else {
            expect(row!.status).toBe("pending")
            expect(row!.next_retry_at.getTime()).toBe(due + nextMinutes * 60_000)
            yield* TestClock.setTime(row!.next_retry_at.getTime() - 1_000)
            expect(yield* rawForward.sweepOnce()).toBe(0)
            due = row!.next_retry_at.getTime()
          }
        }
        yield* TestClock.setTime(due + 24 * 3_600_000)
        expect(yield* rawForward.sweepOnce()).toBe(0)
      }).pipe(Effect.provide(TestContext.TestContext))
      expect(receiver.received).toHaveLength(5)
      expect(new Set(receiver.received.map((r) => r.headers["x-platform-delivery-id"])).size).toBe(1)
    }))

  it.scoped("a worker killed mid-delivery leaves its lease; after 2 minutes the sweep delivers again with the same id", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((r) => (r.n === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 }))
      const ch = yield* createChannel({ webhookUrl: receiver.url })
      const sql = yield* SqlClient.SqlClient
      const rawForward = yield* RawForward
      const start = Date.now()
      const [row] = yield* sql<{ id: number }>`
        insert into platform_deliveries (developer_account_id, platform_channel_id, body, next_retry_at)
        values (${ch.accountId}, ${ch.channelId}, '{"object":"whatsapp_business_account","entry":[]}', ${new Date(start)})
        returning id`
      yield* Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const worker = yield* Effect.fork(rawForward.sweepOnce())
        yield* receiver.waitFor(1)
        yield* Fiber.interrupt(worker)
        const [held] = yield* deliveriesOf(ch.channelId)
        expect(held).toMatchObject({ status: "delivering", attempts: 0 })
        expect(held!.next_retry_at.getTime()).toBe(start + 120_000)
        yield* TestClock.setTime(start + 119_000)
        expect(yield* rawForward.sweepOnce()).toBe(0)
        yield* TestClock.setTime(start + 120_000)
        expect(yield* rawForward.sweepOnce()).toBe(1)
      }).pipe(Effect.provide(TestContext.TestContext))
      const [done] = yield* deliveriesOf(ch.channelId)
      expect(done).toMatchObject({ status: "delivered", attempts: 1 })
      expect(receiver.received.map((r) => r.headers["x-platform-delivery-id"])).toEqual([String(row!.id), String(row!.id)])
    }))

  it.scoped("an SSRF rejection at delivery time counts as a failed attempt", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel({ webhookUrl: "http://10.1.2.3/hook" })
      expect((yield* postInbound(inboundText(ch.line, "5511900000006", "rede privada"))).status).toBe(200)
      const row = yield* settle(ch.channelId, (r) => r.attempts === 1)
      expect(row.status).toBe("pending")
      expect(row.response_status).toBeNull()
      expect(row.last_error).toMatch(/private|10\.1\.2\.3/)
    }))
})
