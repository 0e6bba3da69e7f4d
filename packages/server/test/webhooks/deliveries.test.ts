import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock, TestContext } from "effect"
import { FanOut } from "../../src/delivery/fan-out.js"
import { baseUrl, createKey, request } from "../auth/support.js"
import { drainDeliveries } from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"
import { webhookDeveloper, WebhooksTestServer } from "../support/webhooks.js"

const developer = webhookDeveloper("deliveries")

layer(WebhooksTestServer, { excludeTestServices: true })("deliveries API, conversation PATCH, event stream", (it) => {
  it.scoped("attempts and next_retry_at of the retry schedule are visible in the API, then failed", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 500, body: "x".repeat(600) }))
      const { key } = yield* developer
      const sub = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: receiver.url } })
      const test = yield* request("POST", `/platform/v1/webhooks/subscriptions/${sub.body.id}/test`, { key })
      const id = test.body.id
      // The server stamped the row with the wall clock; from here the dispatcher runs on the TestClock.
      const t0 = Date.now() + 1000
      yield* TestClock.setTime(t0)
      const offsets = [1, 6, 36, 156]
      yield* drainDeliveries()
      for (let attempt = 1; attempt <= 5; attempt++) {
        const d = yield* request("GET", `/platform/v1/webhooks/deliveries/${id}`, { key })
        expect(d.body.attempts).toBe(attempt)
        expect(d.body.response_status).toBe(500)
        expect(d.body.response_body_snippet).toHaveLength(512)
        if (attempt < 5) {
          expect(d.body.status).toBe("pending")
          expect(d.body.next_retry_at).toBe(new Date(t0 + offsets[attempt - 1]! * 60_000).toISOString())
          yield* TestClock.setTime(t0 + offsets[attempt - 1]! * 60_000)
          yield* drainDeliveries()
        } else {
          expect(d.body).toMatchObject({ status: "failed", next_retry_at: null, delivered_at: null })
        }
      }
      const failed = yield* request("GET", `/platform/v1/webhooks/deliveries?errors_only=true&subscription_id=${sub.body.id}`, { key })
      expect(failed.body).toMatchObject({ mode: "native", has_more: false, next_cursor: null })
      expect(failed.body.data.map((d: { id: number }) => d.id)).toEqual([id])
      expect(failed.body.data[0].envelope).toBeUndefined()
      // errors_only and status are AND-combined: failed and another status is nothing, failed and failed the row.
      for (const [q, ids] of [["status=delivered", []], ["status=pending", []], ["status=failed", [id]]] as const) {
        const both = yield* request("GET", `/platform/v1/webhooks/deliveries?errors_only=true&${q}&subscription_id=${sub.body.id}`, { key })
        expect(both.body.data.map((d: { id: number }) => d.id), q).toEqual(ids)
      }
      const full = yield* request("GET", `/platform/v1/webhooks/deliveries/${id}?include=full_envelope`, { key })
      expect(full.body.envelope).toMatchObject({ id: test.body.event_id, data: { _test: true } })

      // Redelivery: same event id, a new row; pending/delivering originals are 409.
      const again = yield* request("POST", `/platform/v1/webhooks/deliveries/${id}/redeliver`, { key })
      expect(again.status).toBe(201)
      expect(again.body).toMatchObject({ event_id: test.body.event_id, status: "pending", attempts: 0 })
      expect(again.body.id).not.toBe(id)
      const locked = yield* request("POST", `/platform/v1/webhooks/deliveries/${again.body.id}/redeliver`, { key })
      expect(locked.status).toBe(409)
      expect(locked.body.detail).toMatchObject({ code: "status_locked", status: "pending" })
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.scoped("a failed attempt says why in last_error (no answer: the reason; an answer: its status) with its latency; delivered clears it", () =>
    Effect.gen(function*() {
      let answer = 503
      const receiver = yield* startReceiver(() => ({ status: answer, body: "busy" }))
      const { channelId, key } = yield* developer
      const nobody = "http://127.0.0.1:9/hook"
      const sub = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: nobody } })
      const test = yield* request("POST", `/platform/v1/webhooks/subscriptions/${sub.body.id}/test`, { key })
      expect(test.body).toMatchObject({ attempts: 0, last_error: null, latency_ms: null })
      const t0 = Date.now() + 1000
      yield* TestClock.setTime(t0)
      yield* drainDeliveries()
      const refused = (yield* request("GET", `/platform/v1/webhooks/deliveries/${test.body.id}`, { key })).body
      expect(refused).toMatchObject({ status: "pending", attempts: 1, response_status: null, response_body_snippet: null })
      expect(refused.last_error).toBe("connection refused (ECONNREFUSED)")
      expect(refused.latency_ms).toBeGreaterThanOrEqual(0)

      yield* request("PATCH", `/platform/v1/webhooks/subscriptions/${sub.body.id}`, { key, body: { target_url: receiver.url } })
      yield* TestClock.setTime(t0 + 60_000)
      yield* drainDeliveries()
      const listed = yield* request("GET", `/platform/v1/webhooks/deliveries?subscription_id=${sub.body.id}`, { key })
      expect(listed.body.data[0]).toMatchObject({ attempts: 2, response_status: 503, last_error: "HTTP 503" })
      expect(listed.body.data[0].latency_ms).toBeGreaterThanOrEqual(0)

      answer = 200
      yield* TestClock.setTime(t0 + 6 * 60_000)
      yield* drainDeliveries()
      const delivered = (yield* request("GET", `/platform/v1/webhooks/deliveries/${test.body.id}`, { key })).body
      expect(delivered).toMatchObject({ status: "delivered", attempts: 3, response_status: 200, last_error: null })
      expect(delivered.latency_ms).toBeGreaterThanOrEqual(0)

      // Raw-forward rows (mode=meta) show theirs too.
      const sql = yield* SqlClient.SqlClient
      yield* sql`insert into platform_deliveries (developer_account_id, platform_channel_id, body, status, attempts, last_error)
        select developer_account_id, id, '{}', 'pending', 1, 'no response within 10000 ms' from platform_channels where id = ${channelId}`
      const meta = yield* request("GET", "/platform/v1/webhooks/deliveries?mode=meta", { key })
      expect(meta.body.data).toMatchObject([{ attempts: 1, response_status: null, last_error: "no response within 10000 ms" }])
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.scoped("last_attempt_at is when the last attempt was recorded: null before it, a retried and a finally failed delivery's own times", () =>
    Effect.gen(function*() {
      let retriedAnswer = 503
      const flaky = yield* startReceiver(() => ({ status: retriedAnswer, body: "busy" }))
      const down = yield* startReceiver(() => ({ status: 500, body: "down" }))
      const { key } = yield* developer
      const subRetried = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: flaky.url } })
      const subFailed = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: down.url } })
      const retried = (yield* request("POST", `/platform/v1/webhooks/subscriptions/${subRetried.body.id}/test`, { key })).body
      const failed = (yield* request("POST", `/platform/v1/webhooks/subscriptions/${subFailed.body.id}/test`, { key })).body
      expect(retried).toMatchObject({ attempts: 0, last_attempt_at: null })
      const get = (id: number) => Effect.map(request("GET", `/platform/v1/webhooks/deliveries/${id}`, { key }), (r) => r.body)
      const listed = (subscription: number) =>
        Effect.map(request("GET", `/platform/v1/webhooks/deliveries?subscription_id=${subscription}`, { key }), (r) => r.body.data[0])
      expect(yield* get(failed.id)).toMatchObject({ status: "pending", attempts: 0, last_attempt_at: null })
      expect(yield* listed(subFailed.body.id)).toMatchObject({ attempts: 0, last_attempt_at: null })

      // Each attempt is recorded at the dispatcher's clock (the TestClock): exactly the times below.
      const t0 = Date.now() + 1000
      const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString()
      yield* TestClock.setTime(t0)
      yield* drainDeliveries()
      expect(yield* get(retried.id)).toMatchObject({ status: "pending", attempts: 1, last_error: "HTTP 503", next_retry_at: at(1), last_attempt_at: at(0) })
      expect(yield* listed(subRetried.body.id)).toMatchObject({ id: retried.id, attempts: 1, last_attempt_at: at(0) })

      // A claim rewrites the row's updated_at (the lease) while the next attempt is in flight: the last one's time stays.
      const sql = yield* SqlClient.SqlClient
      const lease = new Date(t0 + 20_000)
      yield* sql`update webhook_deliveries set status = 'delivering', delivering_since = ${lease}, updated_at = ${lease}
        where id = ${retried.id}`
      expect(yield* get(retried.id)).toMatchObject({ status: "delivering", attempts: 1, last_attempt_at: at(0) })
      yield* sql`update webhook_deliveries set status = 'pending', delivering_since = null where id = ${retried.id}`

      retriedAnswer = 200
      yield* TestClock.setTime(t0 + 60_000)
      yield* drainDeliveries()
      expect(yield* get(retried.id)).toMatchObject({ status: "delivered", attempts: 2, delivered_at: at(1), last_attempt_at: at(1) })

      // The other delivery failed its first two attempts meanwhile (at 0 and 1 min), then fails the rest on the schedule.
      const schedule = [1, 6, 36, 156]
      for (let attempt = 2; attempt <= 4; attempt++) {
        const recorded = schedule[attempt - 2]!
        expect(yield* get(failed.id)).toMatchObject({ status: "pending", attempts: attempt, last_attempt_at: at(recorded) })
        yield* TestClock.setTime(t0 + schedule[attempt - 1]! * 60_000)
        yield* drainDeliveries()
      }
      const final = yield* get(failed.id)
      expect(final).toMatchObject({ status: "failed", attempts: 5, next_retry_at: null, delivered_at: null, last_error: "HTTP 500", last_attempt_at: at(156) })
      expect(yield* listed(subFailed.body.id)).toMatchObject({ id: failed.id, status: "failed", last_attempt_at: at(156) })
      // A redelivery is a new row, not attempted yet.
      const again = yield* request("POST", `/platform/v1/webhooks/deliveries/${failed.id}/redeliver`, { key })
      expect(again.body).toMatchObject({ status: "pending", attempts: 0, last_attempt_at: null })
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.scoped("list filters, cursors, unknown values and another account's delivery", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { key } = yield* developer
      const other = yield* developer
      const sub = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: receiver.url } })
      const ids: Array<number> = []
      for (let i = 0; i < 5; i++) {
        ids.push((yield* request("POST", `/platform/v1/webhooks/subscriptions/${sub.body.id}/test?event_type=channel.connected`, { key })).body.id)
      }
      const page1 = yield* request("GET", "/platform/v1/webhooks/deliveries?limit=3", { key })
      expect(page1.body.data.map((d: { id: number }) => d.id)).toEqual(ids.slice(2).reverse())
      const page2 = yield* request("GET", `/platform/v1/webhooks/deliveries?limit=3&after=${page1.body.next_cursor}`, { key })
      expect(page2.body.data.map((d: { id: number }) => d.id)).toEqual(ids.slice(0, 2).reverse())
      expect(page2.body.has_more).toBe(false)
      // And back from the oldest: the two nearest it, then the rest; newest first on each page.
      const oldest = Buffer.from(`id:${ids[0]}`, "utf8").toString("base64url")
      const back1 = yield* request("GET", `/platform/v1/webhooks/deliveries?limit=2&before=${oldest}`, { key })
      expect(back1.body.data.map((d: { id: number }) => d.id)).toEqual([ids[2], ids[1]])
      expect(back1.body.has_more).toBe(true)
      const back2 = yield* request("GET", `/platform/v1/webhooks/deliveries?limit=2&before=${back1.body.next_cursor}`, { key })
      expect(back2.body).toMatchObject({ has_more: false, next_cursor: null })
      expect(back2.body.data.map((d: { id: number }) => d.id)).toEqual([ids[4], ids[3]])
      for (const q of ["status=bogus", "event_type=nope", "subscription_id=999999"]) {
        const r = yield* request("GET", `/platform/v1/webhooks/deliveries?${q}`, { key })
        expect(r.status, q).toBe(200)
        expect(r.body.data, q).toEqual([])
      }
      // A cursor the API did not issue is not an unknown filter value: an empty page would read as the end.
      const truncated = String(page1.body.next_cursor).slice(2)
      for (const [q, param, input] of [
        ["after=garbage", "after", "garbage"],
        [`after=${truncated}`, "after", truncated],
        ["before=", "before", ""],
        ["mode=meta&before=bm90LWFuLWlk", "before", "bm90LWFuLWlk"]
      ] as const) {
        const r = yield* request("GET", `/platform/v1/webhooks/deliveries?${q}`, { key })
        expect(r.status, q).toBe(422)
        expect(r.body.detail).toEqual([{
          loc: ["query", param],
          msg: "is not a cursor of this list: pass a page's next_cursor as it came",
          type: "value_error",
          input,
          ctx: {}
        }])
      }
      expect((yield* request("GET", "/platform/v1/webhooks/deliveries?limit=201", { key })).status).toBe(422)
      const meta = yield* request("GET", "/platform/v1/webhooks/deliveries?mode=meta", { key })
      expect(meta.body).toEqual({ mode: "meta", data: [], has_more: false, next_cursor: null })
      // A native-only filter with mode=meta is a mistake to name, not an empty page.
      for (const [q, param, input] of [
        ["mode=meta&subscription_id=12", "subscription_id", 12],
        ["mode=meta&event_type=message.sent", "event_type", "message.sent"]
      ] as const) {
        const r = yield* request("GET", `/platform/v1/webhooks/deliveries?${q}`, { key })
        expect(r.status, q).toBe(422)
        expect(r.body.detail).toEqual([{
          loc: ["query", param],
          msg: `applies to mode=native only (SPEC §4.6): raw-forward deliveries have no ${param}; drop it or use mode=native`,
          type: "filter_not_applicable",
          input,
          ctx: { mode: "meta" }
        }])
      }
      // A delivered raw-forward row has no next retry, whatever its lease column last held.
      const { channelId, key: metaKey } = yield* developer
      const sql = yield* SqlClient.SqlClient
      yield* sql`insert into platform_deliveries (developer_account_id, platform_channel_id, body, status, attempts, next_retry_at, delivered_at)
        select developer_account_id, id, '{}', 'delivered', 1, now() + interval '2 minutes', now() from platform_channels where id = ${channelId}`
      const delivered = yield* request("GET", "/platform/v1/webhooks/deliveries?mode=meta", { key: metaKey })
      expect(delivered.body.data).toMatchObject([{ status: "delivered", attempts: 1, next_retry_at: null }])
      expect((yield* request("GET", `/platform/v1/webhooks/deliveries/${ids[0]}`, { key: other.key })).status).toBe(404)
      expect((yield* request("GET", "/platform/v1/webhooks/deliveries", { key: other.key })).body.data).toEqual([])
    }))

  it.scoped("PATCH conversation ended emits conversation.ended to subscriptions and the event stream; active re-opens", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { dev, key, channelId } = yield* developer
      const sql = yield* SqlClient.SqlClient
      const [conv] = yield* sql<{ id: number }>`insert into conversations (developer_account_id, platform_channel_id, peer_id, message_count)
        values (${dev.accountId}, ${channelId}, '5511999', 4) returning id`
      yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: receiver.url, event_types: ["conversation.ended"] } })

      // Open the event stream first, as `platform listen` does.
      const base = yield* baseUrl
      const controller = new AbortController()
      const stream = yield* Effect.promise(() =>
        fetch(`${base}/platform/v1/events/stream?event_types=conversation.ended`, { headers: { "x-api-key": key }, signal: controller.signal })
      )
      expect(stream.status).toBe(200)
      expect(stream.headers.get("content-type")).toContain("text/event-stream")
      const reader = stream.body!.getReader()
      let text = ""
      const readUntil = (needle: string) =>
        Effect.promise(async () => {
          while (!text.includes(needle)) {
            const { value, done } = await reader.read()
            if (done) break
            text += new TextDecoder().decode(value)
          }
          return text
        }).pipe(Effect.timeout(Duration.seconds(10)))
      yield* readUntil(": connected")

      const ended = yield* request("PATCH", `/platform/v1/conversations/${conv!.id}`, { key, body: { status: "ended" } })
      expect(ended.status).toBe(200)
      expect(ended.body).toMatchObject({ id: conv!.id, status: "ended", message_count: 4 })
      expect(ended.body.ended_at).not.toBeNull()
      const sse = yield* readUntil("}\n\n")
      controller.abort()
      const [, eventId] = /id: (evt_[0-9a-f]{32})\nevent: conversation\.ended\ndata: /.exec(sse) ?? []
      expect(eventId).toBeDefined()

      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      const [r] = yield* receiver.waitFor(1)
      expect(JSON.parse(r!.body.toString())).toMatchObject({
        id: eventId,
        event: "conversation.ended",
        platform_channel_id: channelId,
        data: { conversation_id: conv!.id, peer_id: "5511999", status: "ended", message_count: 4 }
      })
      // The delivery row holds no copy of the envelope; the API reads it from the event.
      const listed = yield* request("GET", "/platform/v1/webhooks/deliveries?event_type=conversation.ended", { key })
      expect(listed.body.data).toHaveLength(1)
      const full = yield* request("GET", `/platform/v1/webhooks/deliveries/${listed.body.data[0].id}?include=full_envelope`, { key })
      expect(full.body).toMatchObject({ event_id: eventId, status: "delivered" })
      // Key for key in the order sent (SPEC §6.2), so the body a receiver verified can be rebuilt from the API.
      expect(JSON.stringify(full.body.envelope)).toBe(r!.body.toString())

      // Already ended: no second event. Re-activation clears ended_at.
      expect((yield* request("PATCH", `/platform/v1/conversations/${conv!.id}`, { key, body: { status: "ended" } })).status).toBe(200)
      const reopened = yield* request("PATCH", `/platform/v1/conversations/${conv!.id}`, { key, body: { status: "active" } })
      expect(reopened.body).toMatchObject({ status: "active", ended_at: null })
      const [count] = yield* sql<{ n: number }>`select count(*)::int as n from events where event_type = 'conversation.ended'
        and developer_account_id = ${dev.accountId}`
      expect(count!.n).toBe(1)
      expect((yield* request("PATCH", `/platform/v1/conversations/${conv!.id}`, { key, body: { status: "closed" } })).status).toBe(422)

      // Last-Event-ID resumes after that event: nothing older is replayed.
      const resumed = yield* Effect.promise(() =>
        fetch(`${base}/platform/v1/events/stream`, { headers: { "x-api-key": key, "last-event-id": eventId! } })
      )
      expect(resumed.status).toBe(200)
      yield* Effect.promise(() => resumed.body!.cancel())
      const limited = yield* createKey(dev, { scopes: ["send:messages"] })
      expect((yield* request("PATCH", `/platform/v1/conversations/${conv!.id}`, { key: limited.key, body: { status: "ended" } })).status).toBe(403)
    }))

  it.effect("redelivering a delivery still pending is a 409 that says why and what can be redelivered", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const sub = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: "http://127.0.0.1:9/hook" } })
      const test = yield* request("POST", `/platform/v1/webhooks/subscriptions/${sub.body.id}/test`, { key })
      const locked = yield* request("POST", `/platform/v1/webhooks/deliveries/${test.body.id}/redeliver`, { key })
      expect(locked.status).toBe(409)
      expect(locked.body.detail).toEqual({
        code: "status_locked",
        status: "pending",
        message: `delivery ${test.body.id} is pending: only a delivered or failed delivery can be redelivered, and this one is still being delivered (retries included)`
      })
    }))

  it.effect("a misspelt include on a delivery is a 422 naming the accepted value, not the OpenAPI description", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const sub = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, body: { target_url: "http://127.0.0.1:9/hook" } })
      const test = yield* request("POST", `/platform/v1/webhooks/subscriptions/${sub.body.id}/test`, { key })
      const reply = yield* request("GET", `/platform/v1/webhooks/deliveries/${test.body.id}?include=full_envelop`, { key })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toEqual([{
        loc: ["query", "include"],
        msg: "Expected \"full_envelope\", actual \"full_envelop\"",
        type: "value_error",
        input: "full_envelop",
        ctx: {}
      }])
      const full = yield* request("GET", `/platform/v1/webhooks/deliveries/${test.body.id}?include=full_envelope`, { key })
      expect(full.status).toBe(200)
      expect(full.body.envelope).toMatchObject({ id: test.body.event_id })
    }))

  it.effect("an event stream filter with a misspelt event type is a 422 naming it, not a silent stream", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const reply = yield* request("GET", "/platform/v1/events/stream?event_types=message.sent,%20message.recieved", { key })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toHaveLength(1)
      expect(reply.body.detail[0]).toMatchObject({
        loc: ["query", "event_types", 1],
        type: "value_error",
        input: "message.sent, message.recieved", // the parameter as sent
        msg: expect.stringContaining("\"message.received\" | \"message.sent\"")
      })
      expect(reply.body.detail[0].msg).toMatch(/, actual "message\.recieved"$/)

      // Known types, with blanks and an empty item, still stream.
      const base = yield* baseUrl
      const stream = yield* Effect.promise(() =>
        fetch(`${base}/platform/v1/events/stream?event_types=message.sent,%20message.read,`, { headers: { "x-api-key": key } })
      )
      expect(stream.status).toBe(200)
      yield* Effect.promise(() => stream.body!.cancel())
    }))
})
