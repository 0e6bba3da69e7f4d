import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { http, HttpResponse } from "msw"
import { GRAPH, VERSION } from "../fixtures/meta/index.js"
import { inboundText, signedBody, statusCallback, wamid } from "../fixtures/meta/inbound.js"
import { ENVELOPE_KEYS, formOf, MESSAGE_DATA_KEYS } from "../support/envelope-form.js"
import { graphDeveloper, graphMock, GRAPH_LINE, once } from "../support/graph-mock.js"
import { baseUrl } from "../support/server.js"
import { eventsWritten } from "../../src/telemetry/metrics.js"
import { MessagingTestServer, send, sql } from "./support.js"

// Only Graph traffic is mocked; the test's own requests to the loopback server pass through.
const msw = graphMock("bypass")

const ctx = once(graphDeveloper("parked", { token: "EAAGparkedToken0123456789" }))

const post = (base: string, payload: unknown) => {
  const signed = signedBody(payload)
  return fetch(`${base}/webhook/incoming`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": signed.signature },
    body: signed.body
  })
}

/** Meta answers the send with `id`; `before` runs first (the callbacks Meta fires before its answer reaches us). */
const answerWith = (id: string, waId: string, before: () => Promise<void> = async () => {}) =>
  msw.use(http.post(`${GRAPH}/${VERSION}/:pnid/messages`, async () => {
    await before()
    return HttpResponse.json({ messaging_product: "whatsapp", contacts: [{ input: waId, wa_id: waId }], messages: [{ id }] })
  }))

const eventsFor = (accountId: number, mid: string) =>
  Effect.flatMap(sql, (q) =>
    q<{ event_type: string; envelope: any; text: string }>`
      select event_type, envelope, envelope::text as text from events
      where developer_account_id = ${accountId} and envelope->'data'->>'meta_message_id' = ${mid} order by id`)

layer(MessagingTestServer({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION }), {
  timeout: 120_000,
  excludeTestServices: true
})("status callbacks before the send is recorded; conversation.created after a send", (it) => {
  it.effect("delivered and read posted before the send's row exists are applied when it is recorded, events once each", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* baseUrl
      const q = yield* sql
      const mid = wamid()
      const peer = "15550200001"
      const answers: Array<number> = []
      answerWith(mid, peer, async () => {
        for (const status of ["sent", "delivered", "read", "delivered"]) {
          answers.push((await post(base, statusCallback(GRAPH_LINE, mid, status, peer))).status)
        }
      })
      const written = Effect.promise(async () => {
        const { values } = await eventsWritten.get()
        return Object.fromEntries(["message.sent", "message.delivered", "message.read"].map((type) =>
          [type, values.find((v) => v.labels.event_type === type)?.value ?? 0]))
      })
      const before = yield* written
      const reply = yield* send(s.key, { channel_id: s.chat, to: peer, type: "text", text: "fast" })
      expect(reply.status, reply.text).toBe(200)
      expect(answers).toEqual([200, 200, 200, 200])
      // The events the record wrote for the parked statuses are counted with its message.sent.
      const after = yield* written
      expect(Object.fromEntries(Object.entries(after).map(([type, n]) => [type, n - before[type]!])))
        .toEqual({ "message.sent": 1, "message.delivered": 1, "message.read": 1 })
      const [m] = yield* q<{ status: string }>`select status from messages where meta_message_id = ${mid}`
      expect(m!.status).toBe("read")
      const events = yield* eventsFor(s.dev.accountId, mid)
      expect(events.map((e) => e.event_type)).toEqual(["message.sent", "message.delivered", "message.read"])
      expect(events[2]!.envelope.data).toMatchObject({ status: "read", direction: "outbound", source: "api", peer_id: peer })
      expect(yield* q`select 1 from parked_statuses where meta_message_id = ${mid}`).toHaveLength(0)
      // A late duplicate changes nothing.
      yield* Effect.promise(() => post(base, statusCallback(GRAPH_LINE, mid, "read", peer)))
      expect(yield* eventsFor(s.dev.accountId, mid)).toHaveLength(3)
    }))

  it.effect("a failed callback before the record leaves the message failed with the envelope and message.failed", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* baseUrl
      const q = yield* sql
      const mid = wamid()
      const peer = "15550200002"
      answerWith(mid, peer, async () => {
        await post(base, statusCallback(GRAPH_LINE, mid, "failed", peer, { errors: [{ code: 131026, title: "Message undeliverable" }] }))
      })
      expect((yield* send(s.key, { channel_id: s.chat, to: peer, type: "text", text: "doomed" })).status).toBe(200)
      const [m] = yield* q<{ status: string; error: any }>`select status, error from messages where meta_message_id = ${mid}`
      expect(m!.status).toBe("failed")
      expect(m!.error).toMatchObject({ meta_code: 131026 })
      const events = yield* eventsFor(s.dev.accountId, mid)
      expect(events.map((e) => e.event_type)).toEqual(["message.sent", "message.failed"])
      expect(events[1]!.envelope.data.error).toMatchObject({ meta_code: 131026 })
      // The parked error goes into the event as it came: the envelope stays compact.
      expect(events.map((e) => formOf(e.text))).toEqual([
        { compact: true, keys: ENVELOPE_KEYS, dataKeys: MESSAGE_DATA_KEYS },
        { compact: true, keys: ENVELOPE_KEYS, dataKeys: [...MESSAGE_DATA_KEYS, "error"] }
      ])
    }))

  it.effect("an expired parked status is dropped, not applied", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* baseUrl
      const q = yield* sql
      const mid = wamid()
      const peer = "15550200003"
      expect((yield* Effect.promise(() => post(base, statusCallback(GRAPH_LINE, mid, "read", peer)))).status).toBe(200)
      expect(yield* eventsFor(s.dev.accountId, mid)).toHaveLength(0)
      const parked = yield* q`update parked_statuses set expires_at = now() - interval '1 second'
        where meta_message_id = ${mid} returning 1`
      expect(parked).toHaveLength(1)
      answerWith(mid, peer)
      expect((yield* send(s.key, { channel_id: s.chat, to: peer, type: "text", text: "late" })).status).toBe(200)
      const [m] = yield* q<{ status: string }>`select status from messages where meta_message_id = ${mid}`
      expect(m!.status).toBe("sent")
      expect((yield* eventsFor(s.dev.accountId, mid)).map((e) => e.event_type)).toEqual(["message.sent"])
      expect(yield* q`select 1 from parked_statuses where meta_message_id = ${mid}`).toHaveLength(0)
    }))

  it.effect("send, then the peer's first inbound message: exactly one conversation.created, also after more and duplicate POSTs", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* baseUrl
      const q = yield* sql
      const peer = "15550200004"
      answerWith(wamid(), peer)
      expect((yield* send(s.key, { channel_id: s.chat, to: peer, type: "text", text: "hello first" })).status).toBe(200)
      const created = Effect.map(
        q<{ envelope: any }>`select envelope from events where developer_account_id = ${s.dev.accountId}
          and event_type = 'conversation.created' and envelope->'data'->>'peer_id' = ${peer}`,
        (rows) => rows
      )
      expect(yield* created).toHaveLength(0)
      const first = inboundText(GRAPH_LINE, peer, "oi", { id: wamid() })
      for (let i = 0; i < 3; i++) expect((yield* Effect.promise(() => post(base, first))).status).toBe(200)
      yield* Effect.promise(() => post(base, inboundText(GRAPH_LINE, peer, "de novo", { id: wamid() })))
      const events = yield* created
      expect(events).toHaveLength(1)
      const [conv] = yield* q<{ id: number; message_count: number }>`
        select id, message_count from conversations where platform_channel_id = ${s.chat} and peer_id = ${peer}`
      expect(conv!.message_count).toBe(3)
      expect(events[0]!.envelope.data).toMatchObject({ conversation_id: conv!.id, peer_id: peer, status: "active" })
    }))
})
