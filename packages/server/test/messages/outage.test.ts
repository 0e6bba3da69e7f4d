import { afterAll, afterEach, beforeAll, expect, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { BroadcastSender } from "../../src/broadcasts/broadcast-sender.js"
import { Secrets } from "../../src/crypto/secrets.js"
import { createKey, signup } from "../auth/support.js"
import { api, BROADCAST_TEMPLATE, broadcastRow, draftWith } from "../broadcasts/support.js"
import { GRAPH, VERSION } from "../fixtures/meta/index.js"
import { signedBody, statusCallback, wamid } from "../fixtures/meta/inbound.js"
import { DatabaseOutage, TestDatabaseBehindProxy } from "../support/outage-proxy.js"
import { baseUrl } from "../support/server.js"
import { MessagingTestServerOn, send, type Setup, sql } from "./support.js"

// Only Graph traffic is mocked; the test's own requests to the loopback server pass through.
const msw = setupServer()
beforeAll(() => msw.listen({ onUnhandledRequest: "bypass" }))
afterEach(() => msw.resetHandlers())
afterAll(() => msw.close())

const LINE = { waba_id: "102290129340777", phone_number_id: "106540352242777" }

let upstreamCalls = 0

/**
 * Meta answers every send: accepted with a new wamid, or (`refuse`) with its re-engagement
 * error. `atAnswer` runs after Meta has acted and before its answer reaches the server:
 * where the tests take the database away.
 */
const metaAnswers = (atAnswer: (id: string) => Promise<void> | void, refuse = false) =>
  msw.use(http.post(`${GRAPH}/${VERSION}/:pnid/messages`, async ({ request }) => {
    upstreamCalls++
    const body = (await request.json()) as { readonly to: string }
    const id = wamid()
    await atAnswer(id)
    return refuse
      ? HttpResponse.json(
        { error: { message: "Re-engagement message", type: "OAuthException", code: 131047, fbtrace_id: "AbCdEf" } },
        { status: 400 }
      )
      : HttpResponse.json({ messaging_product: "whatsapp", contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] })
  }))

const setupMeta = Effect.gen(function*() {
  const dev = yield* signup("outage")
  const q = yield* sql
  // Lite: broadcasts are allowed.
  yield* q`update developer_accounts set plan = 'lite' where id = ${dev.accountId}`
  const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
  const secrets = yield* Secrets
  const [row] = yield* q<{ id: number }>`
    insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, access_token_encrypted)
    values (${dev.accountId}, 'chat', 'msw', ${LINE.phone_number_id}, ${LINE.waba_id}, ${secrets.encrypt("EAAGoutageToken0123456789")})
    returning id`
  // The template its broadcasts send, approved (Meta, the msw handler, sends any name).
  yield* q`insert into templates (developer_account_id, platform_channel_id, name, language_code, category, components, meta_status)
    values (${dev.accountId}, ${row!.id}, ${BROADCAST_TEMPLATE}, 'en_US', 'utility',
      ${JSON.stringify([{ type: "BODY", text: "Your order has shipped" }])}::jsonb, 'approved')`
  return { dev, key, chat: row!.id, social: 0 } satisfies Setup
})
let ready: Setup | undefined
const ctx = Effect.suspend(() => (ready ? Effect.succeed(ready) : setupMeta.pipe(Effect.tap((s) => (ready = s)))))

let n = 0
const freshKey = () => `outage-${Date.now().toString(36)}-${n++}`

const postStatusTo = (base: string, mid: string, status: string, peer: string) => {
  const signed = signedBody(statusCallback(LINE, mid, status, peer))
  return fetch(`${base}/webhook/incoming`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": signed.signature },
    body: signed.body
  }).then((r) => r.status)
}

/** Meta's status callback for `mid` posted to /webhook/incoming; its HTTP status. */
const postStatus = (mid: string, status: string, peer: string) =>
  Effect.flatMap(baseUrl, (base) => Effect.promise(() => postStatusTo(base, mid, status, peer)))

const messagesOf = (mid: string) =>
  Effect.flatMap(sql, (q) =>
    q<{ id: number; status: string; source: string; direction: string; error: any }>`
      select id, status, source, direction, error from messages where meta_message_id = ${mid}`)

const eventTypesOf = (mid: string) =>
  Effect.flatMap(sql, (q) =>
    q<{ event_type: string }>`
      select event_type from events where envelope->'data'->>'meta_message_id' = ${mid} order by id`).pipe(
    Effect.map((rows) => rows.map((r) => r.event_type))
  )

/** Polls `probe` until `done` holds (the database is back, the held record written), 20 s at most. */
const eventually = <A, E, R>(probe: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 20_000
    for (;;) {
      const value = yield* probe
      if (done(value) || Date.now() > deadline) return value
      yield* Effect.sleep("50 millis")
    }
  })

/** Runs `test` with the database proxy restored at its end, whatever happens. */
const withOutage = <A, E, R>(test: (outage: DatabaseOutage["Type"]) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(DatabaseOutage, (outage) => test(outage).pipe(Effect.ensuring(Effect.sync(() => outage.proxy.restore()))))

layer(MessagingTestServerOn(TestDatabaseBehindProxy, { UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION }), {
  timeout: 120_000,
  excludeTestServices: true
})("a send Meta accepted while the database went away", (it) => {
  it.effect("is 503 outcome_pending with its wamid; recorded once when the database returns, the key then replays the 200 without a second send, and a delivered callback finds the message", () =>
    withOutage(({ proxy }) =>
      Effect.gen(function*() {
        const s = yield* ctx
        const peer = "15550300001"
        let mid = ""
        metaAnswers((id) => {
          mid = id
          proxy.cut()
        })
        const before = upstreamCalls
        const body = { channel_id: s.chat, to: peer, type: "text", text: "sent as the database went away" }
        const key = freshKey()

        const first = yield* send(s.key, body, { "idempotency-key": key })
        expect(first.status, first.text).toBe(503)
        expect(first.headers.get("retry-after")).toBe("2")
        expect(first.body).toEqual({
          detail: { code: "outcome_pending", message: expect.stringContaining(mid), meta_message_id: mid }
        })
        expect(first.body.detail.message).toContain("retry with the same Idempotency-Key")

        // During the outage: the retry is answered from the held outcome; a new send is refused before Meta.
        const retry = yield* send(s.key, body, { "idempotency-key": key })
        expect(retry.status, retry.text).toBe(503)
        expect(retry.body.detail).toMatchObject({ code: "outcome_pending", meta_message_id: mid })
        const reused = yield* send(s.key, { ...body, text: "another body" }, { "idempotency-key": key })
        expect(reused.status).toBe(422)
        expect(reused.body.detail.code).toBe("idempotency_key_reused")
        const other = yield* send(s.key, { ...body, text: "a new send during the outage" })
        // The database's own failure, never sent.
        expect(other.status).toBe(503)
        expect(other.body.detail.code).toBe("database_unavailable")
        expect(upstreamCalls - before).toBe(1)

        proxy.restore()
        const rows = yield* eventually(messagesOf(mid), (r) => r.length > 0)
        expect(rows).toHaveLength(1)
        expect(rows[0]).toMatchObject({ status: "sent", source: "api", direction: "outbound" })
        expect(yield* eventTypesOf(mid)).toEqual(["message.sent"])

        const replay = yield* send(s.key, body, { "idempotency-key": key })
        expect(replay.status, replay.text).toBe(200)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.body).toEqual({ channel_id: s.chat, message_id: mid, type: "text" })
        expect(upstreamCalls - before).toBe(1)

        expect(yield* postStatus(mid, "delivered", peer)).toBe(200)
        const delivered = yield* eventually(messagesOf(mid), (r) => r[0]?.status === "delivered")
        expect(delivered.map((m) => m.status)).toEqual(["delivered"])
        expect(yield* eventTypesOf(mid)).toEqual(["message.sent", "message.delivered"])
      })
    ))

  it.effect("without an Idempotency-Key the 503 says it went out and not to send it again; callbacks Meta posted before its answer are applied when it is recorded", () =>
    withOutage(({ proxy }) =>
      Effect.gen(function*() {
        const s = yield* ctx
        const base = yield* baseUrl
        const peer = "15550300002"
        let mid = ""
        const callbacks: Array<number> = []
        metaAnswers(async (id) => {
          mid = id
          // Meta's callbacks can overtake its answer: parked, the message being unknown yet.
          for (const status of ["sent", "delivered"]) callbacks.push(await postStatusTo(base, id, status, peer))
          proxy.cut()
        })
        const before = upstreamCalls

        const first = yield* send(s.key, { channel_id: s.chat, to: peer, type: "text", text: "no key" })
        expect(first.status, first.text).toBe(503)
        expect(first.headers.get("retry-after")).toBe("2")
        expect(first.body).toEqual({
          detail: { code: "outcome_pending", message: expect.stringContaining(mid), meta_message_id: mid }
        })
        expect(first.body.detail.message).toContain("do not send it again")
        expect(callbacks).toEqual([200, 200])

        proxy.restore()
        const rows = yield* eventually(messagesOf(mid), (r) => r.length > 0)
        expect(rows.map((m) => m.status)).toEqual(["delivered"])
        expect(yield* eventTypesOf(mid)).toEqual(["message.sent", "message.delivered"])
        expect(yield* postStatus(mid, "read", peer)).toBe(200)
        yield* eventually(messagesOf(mid), (r) => r[0]?.status === "read")
        expect(yield* eventTypesOf(mid)).toEqual(["message.sent", "message.delivered", "message.read"])
        expect(upstreamCalls - before).toBe(1)
      })
    ))

  it.effect("an outage longer than a claim's stale horizon does not let the retry send again: the held key answers until it is recorded, then replays", () =>
    withOutage(({ direct, proxy }) =>
      Effect.gen(function*() {
        const s = yield* ctx
        let mid = ""
        metaAnswers((id) => {
          mid = id
          proxy.cut()
        })
        const before = upstreamCalls
        const body = { channel_id: s.chat, to: "15550300003", type: "text", text: "a long outage" }
        const key = freshKey()
        expect((yield* send(s.key, body, { "idempotency-key": key })).status).toBe(503)
        // As if the outage had lasted ten minutes: the in_flight claim is past STALE_IN_FLIGHT_SECONDS.
        const aged = yield* direct(
          `update idempotency_keys set created_at = now() - interval '10 minutes'
           where developer_account_id = $1 and key = $2 and status = 'in_flight' returning 1`,
          [s.dev.accountId, key]
        )
        expect(aged).toHaveLength(1)

        proxy.restore()
        const retry = yield* send(s.key, body, { "idempotency-key": key })
        // Held here still (503) or already written (the replay): never a claim taken over and a second send.
        if (retry.status === 503) expect(retry.body.detail).toMatchObject({ code: "outcome_pending", meta_message_id: mid })
        else expect([retry.status, retry.headers.get("idempotent-replayed"), retry.body.message_id]).toEqual([200, "true", mid])
        expect(upstreamCalls - before).toBe(1)

        yield* eventually(messagesOf(mid), (r) => r.length > 0)
        const replay = yield* send(s.key, body, { "idempotency-key": key })
        expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([200, "true"])
        expect(replay.body).toEqual({ channel_id: s.chat, message_id: mid, type: "text" })
        expect(yield* messagesOf(mid)).toHaveLength(1)
        expect(upstreamCalls - before).toBe(1)
      })
    ))

  it.effect("a send Meta refused as the database went away is still its 502, replayed under its key during the outage and after, and recorded failed once", () =>
    withOutage(({ proxy }) =>
      Effect.gen(function*() {
        const s = yield* ctx
        const q = yield* sql
        metaAnswers(() => proxy.cut(), true)
        const before = upstreamCalls
        const to = "15550300004"
        const body = { channel_id: s.chat, to, type: "text", text: "refused" }
        const key = freshKey()

        const first = yield* send(s.key, body, { "idempotency-key": key })
        expect(first.status, first.text).toBe(502)
        expect(first.body).toMatchObject({ meta_code: 131047 })
        const during = yield* send(s.key, body, { "idempotency-key": key })
        expect([during.status, during.headers.get("idempotent-replayed"), during.text]).toEqual([502, "true", first.text])

        proxy.restore()
        const failed = yield* eventually(
          q<{ n: number }>`select count(*)::int as n from messages where platform_channel_id = ${s.chat} and status = 'failed' and text = 'refused'`,
          (rows) => rows[0]!.n > 0
        )
        expect(failed[0]!.n).toBe(1)
        yield* eventually(
          q<{ status: string }>`select status from idempotency_keys where developer_account_id = ${s.dev.accountId} and key = ${key}`,
          (rows) => rows[0]?.status === "completed"
        )
        const after = yield* send(s.key, body, { "idempotency-key": key })
        expect([after.status, after.headers.get("idempotent-replayed"), after.text]).toEqual([502, "true", first.text])
        expect(upstreamCalls - before).toBe(1)
      })
    ))

  it.effect("a broadcast recipient Meta accepted as the database went away is recorded sent once; a pass after its lease ran out does not send it again", () =>
    withOutage(({ direct, proxy }) =>
      Effect.gen(function*() {
        const s = yield* ctx
        const sender = yield* BroadcastSender
        let mid = ""
        metaAnswers((id) => {
          mid = id
          proxy.cut()
        })
        const id = yield* draftWith(s, ["15550300005"])
        const started = yield* api(s, "POST", `/${id}/send`)
        expect(started.status, started.text).toBe(202)
        const before = upstreamCalls

        // The pass sends the recipient, then fails at its next statement: the database is gone.
        const pass = yield* Effect.exit(sender.runOnce())
        expect(Exit.isFailure(pass)).toBe(true)
        expect(upstreamCalls - before).toBe(1)
        // As if the outage had outlasted the claim's 2-minute lease.
        const expired = yield* direct(
          `update broadcast_recipients set claimed_until = now() - interval '1 second'
           where broadcast_id = $1 and status = 'pending' returning 1`,
          [id]
        )
        expect(expired).toHaveLength(1)

        proxy.restore()
        yield* sender.runOnce()
        expect(upstreamCalls - before).toBe(1)

        const rows = yield* eventually(
          Effect.flatMap(sql, (q) =>
            q<{ status: string; meta_message_id: string | null }>`
              select status, meta_message_id from broadcast_recipients where broadcast_id = ${id}`),
          (r) => r[0]?.status === "sent"
        )
        expect(rows).toEqual([{ status: "sent", meta_message_id: mid }])
        const messages = yield* messagesOf(mid)
        expect(messages.map((m) => [m.source, m.status])).toEqual([["broadcast", "sent"]])
        expect(yield* eventTypesOf(mid)).toEqual(["message.sent"])
        yield* sender.runOnce()
        expect((yield* broadcastRow(id)).status).toBe("completed")
        expect(upstreamCalls - before).toBe(1)
      })
    ))
})
