import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { inboundText, statusCallback, wamid } from "../fixtures/meta/inbound.js"
import { postInbound } from "../inbound/support.js"
import { createKey } from "../auth/support.js"
import { createSubscription } from "../support/delivery.js"
import { eventually, startReceiver } from "../support/receiver.js"
import { parseExposition, request, rows, samples, subscribe, TelemetryTestServer, tenant, total } from "./support.js"

const TOKEN = "metrics-test-token-0123456789"

const scrape = (authorization?: string) =>
  request("GET", "/metrics", authorization === undefined ? {} : { headers: { authorization } })

layer(TelemetryTestServer({ METRICS_TOKEN: TOKEN }), { timeout: 120_000, excludeTestServices: true })("GET /metrics", (it) => {
  it.effect("is 401 without the bearer token or with another one, 200 text/plain with it, and no route of the OpenAPI document", () =>
    Effect.gen(function*() {
      const none = yield* scrape()
      expect(none.status).toBe(401)
      expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"')
      expect(none.body.detail.code).toBe("unauthorized")
      expect(none.text).not.toContain("platform_")
      expect((yield* scrape(`Bearer ${TOKEN}x`)).status).toBe(401)
      expect((yield* scrape(TOKEN)).status).toBe(401)
      expect((yield* scrape(`Basic ${TOKEN}`)).status).toBe(401)

      const ok = yield* scrape(`Bearer ${TOKEN}`)
      expect(ok.status).toBe(200)
      expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(ok.text).toContain("# TYPE platform_http_requests_total counter")
      // Node's own (prom-client's default metrics), under their standard names.
      expect(ok.text).toMatch(/^process_cpu_user_seconds_total \d/m)
      expect(ok.text).toMatch(/^nodejs_eventloop_lag_seconds \d/m)

      const openapi = yield* request("GET", "/platform/v1/openapi.json")
      expect(Object.keys(openapi.body.paths).filter((p) => p.includes("metrics"))).toEqual([])
    }))

  it.scoped("after a send, inbound webhooks and deliveries to loopback receivers, the scrape counts each by route template and outcome", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver((r) => ({ status: r.path === "/gone" ? 410 : 200 }))
      const origin = receiver.url.replace(/\/hook$/, "")
      const t = yield* tenant("metrics")
      yield* subscribe(t, receiver.url, ["message.received"])
      const gone = yield* subscribe(t, `${origin}/gone`, ["message.received"])
      const raw = yield* request("PATCH", `/platform/dashboard/channels/${t.channelId}/webhook`, {
        cookie: t.dev.cookie,
        body: { webhook_url: `${origin}/raw` }
      })
      expect(raw.status).toBe(200)

      // A send through the Graph client (the sandbox upstream, over HTTP).
      const sent = yield* request("POST", "/platform/v1/messages", {
        key: t.key,
        body: { channel_id: t.channelId, to: "15550100001", type: "text", text: "hello" }
      })
      expect(sent.status).toBe(200)

      // An inbound message (stored, delivered to both subscriptions and raw-forwarded),
      // Meta's retry of it (duplicate), and a POST with a wrong signature.
      const payload = inboundText(t.line, "15550100002", "hi there", { id: wamid() })
      expect((yield* postInbound(payload)).status).toBe(200)
      expect((yield* postInbound(payload)).status).toBe(200)
      expect((yield* postInbound(payload, { signature: "sha256=00" })).status).toBe(401)

      yield* eventually(Effect.sync(() => {
        const paths = receiver.received.map((r) => r.path)
        return paths.includes("/hook") && paths.includes("/raw") && paths.includes("/gone") ? true : undefined
      }))
      yield* eventually(Effect.map(
        rows((sql) => sql<{ is_active: boolean }>`select is_active from webhook_subscriptions where id = ${gone}`),
        ([s]) => s?.is_active === false ? true : undefined
      ))

      // A by-id route with an id that exists nowhere, and a key over its limit.
      expect((yield* request("GET", "/platform/v1/conversations/987654321", { key: t.key })).status).toBe(404)
      const slow = yield* createKey(t.dev, { rate_limit_per_minute: 1 })
      expect((yield* request("GET", "/platform/v1/channels", { key: slow.key })).status).toBe(200)
      expect((yield* request("GET", "/platform/v1/channels", { key: slow.key })).status).toBe(429)

      // Recorded after the POST answered: the scrape may come first.
      const all = yield* eventually(Effect.map(scrape(`Bearer ${TOKEN}`), (reply) => {
        const parsed = parseExposition(reply.text)
        return total(parsed, "platform_deliveries_total", { kind: "raw_forward", outcome: "delivered" }) >= 1 &&
            total(parsed, "platform_subscriptions_switched_off_total", { reason: "receiver_gone_410" }) >= 1
          ? { parsed, text: reply.text }
          : undefined
      }))
      const m = all.parsed

      // HTTP: route templates, never raw ids.
      expect(total(m, "platform_http_requests_total", { method: "POST", route: "/platform/v1/messages", status: "200" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_http_requests_total", { method: "GET", route: "/platform/v1/conversations/{conversation_id}", status: "404" })).toBe(1)
      expect(total(m, "platform_http_requests_total", { method: "PATCH", route: "/platform/dashboard/channels/{id}/webhook", status: "200" })).toBe(1)
      expect(total(m, "platform_http_requests_total", { method: "POST", route: "/webhook/incoming", status: "401" })).toBe(1)
      expect(total(m, "platform_http_requests_total", { method: "GET", route: "/platform/v1/channels", status: "429" })).toBe(1)
      expect(total(m, "platform_http_request_duration_seconds_count", { method: "POST", route: "/webhook/incoming" })).toBeGreaterThanOrEqual(3)
      expect(samples(m, "platform_http_request_duration_seconds_bucket", { route: "/platform/v1/messages", le: "+Inf" })).toHaveLength(1)
      const routes = new Set(samples(m, "platform_http_requests_total").map((s) => s.labels["route"]!))
      for (const route of routes) expect(route).toMatch(/^(\/[a-z0-9._{}-]*)+$|^unmatched$/)
      expect(all.text).not.toContain("987654321")
      expect(all.text).not.toContain(`/channels/${t.channelId}/`)

      // Inbound outcomes; events written by type.
      expect(total(m, "platform_inbound_webhooks_total", { outcome: "stored" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_inbound_webhooks_total", { outcome: "duplicate" })).toBe(1)
      expect(total(m, "platform_inbound_webhooks_total", { outcome: "bad_signature" })).toBe(1)
      expect(total(m, "platform_events_written_total", { event_type: "message.received" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_events_written_total", { event_type: "conversation.created" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_events_written_total", { event_type: "message.sent" })).toBeGreaterThanOrEqual(1)

      // Deliveries: attempts by status class, outcomes, the 410 switch-off, commit-to-2xx latency.
      expect(total(m, "platform_delivery_attempts_total", { kind: "normalized", result: "2xx" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_delivery_attempts_total", { kind: "normalized", result: "4xx" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_deliveries_total", { kind: "normalized", outcome: "delivered" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_deliveries_total", { kind: "normalized", outcome: "retry_scheduled" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_delivery_attempts_total", { kind: "raw_forward", result: "2xx" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_delivery_latency_seconds_count")).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_delivery_attempt_duration_seconds_count", { kind: "normalized" })).toBeGreaterThanOrEqual(2)

      // Queues, read at scrape time.
      for (const queue of ["normalized", "raw_forward"]) {
        expect(samples(m, "platform_delivery_queue_due", { queue })).toHaveLength(1)
        expect(samples(m, "platform_delivery_queue_oldest_due_seconds", { queue })).toHaveLength(1)
        expect(samples(m, "platform_delivery_queue_in_flight", { queue })).toHaveLength(1)
      }
      expect(samples(m, "platform_event_outbox_pending")).toHaveLength(1)
      expect(samples(m, "platform_broadcasts_sending")).toHaveLength(1)
      expect(samples(m, "platform_broadcast_recipients_pending")).toHaveLength(1)

      // The Graph client: each call by operation, outcome and Meta code, with its latency.
      expect(total(m, "platform_upstream_requests_total", { operation: "messages.send", outcome: "ok", meta_code: "none" })).toBeGreaterThanOrEqual(1)
      expect(total(m, "platform_upstream_request_duration_seconds_count", { operation: "messages.send" })).toBeGreaterThanOrEqual(1)

      // The database pools (on PostgreSQL the engine's and the inbound statement's own too) and the 429s.
      const pools = process.env.DATABASE_URL ? ["app", "engine", "inbound"] : ["app"]
      for (const pool of pools) {
        expect(samples(m, "platform_db_pool_connections", { pool, state: "in_use" })).toHaveLength(1)
        expect(samples(m, "platform_db_pool_waiting", { pool })).toHaveLength(1)
        expect(samples(m, "platform_db_pool_max", { pool })).toHaveLength(1)
      }
      expect(total(m, "platform_rate_limited_total", { reason: "api_key" })).toBe(1)
    }))

  it.effect("each inbound POST counts under its outcome", () =>
    Effect.gen(function*() {
      const t = yield* tenant("outcomes")
      const cases = [
        ["ignored", { payload: inboundText({ waba_id: "1", phone_number_id: "999000111" }, "15550100005", "to nobody") }],
        ["invalid_body", { payload: null, body: "{not json" }],
        ["parked", { payload: statusCallback(t.line, wamid(), "delivered") }]
      ] as const
      for (const [outcome, post] of cases) {
        const count = Effect.map(scrape(`Bearer ${TOKEN}`), (r) => total(parseExposition(r.text), "platform_inbound_webhooks_total", { outcome }))
        const before = yield* count
        const reply = yield* postInbound(post.payload, "body" in post ? { body: post.body } : {})
        expect(reply.status, outcome).toBe(outcome === "invalid_body" ? 400 : 200)
        expect((yield* count) - before, outcome).toBe(1)
      }
    }))

  it.effect("the queue gauges count due rows and the age of the oldest", () =>
    Effect.gen(function*() {
      const t = yield* tenant("queues")
      const sub = yield* createSubscription({ accountId: t.dev.accountId, url: "https://example.com/paused" })
      yield* rows((sql) => sql`update webhook_subscriptions set is_paused = true where id = ${sub.id} returning id`)
      const before = parseExposition((yield* scrape(`Bearer ${TOKEN}`)).text)
      const due = total(before, "platform_delivery_queue_due", { queue: "normalized" })
      // Rows of a paused subscription: due, never claimed (the dispatcher skips it).
      yield* rows((sql) => sql`
        insert into webhook_deliveries (subscription_id, developer_account_id, platform_channel_id, event_id, event_type,
          envelope, next_retry_at, created_at, updated_at)
        select ${sub.id}, ${t.dev.accountId}, ${t.channelId}, 'evt_gauge_' || g, 'message.sent', '{}',
          now() - make_interval(secs => 60 * g), now(), now()
        from generate_series(1, 3) g`)
      const after = parseExposition((yield* scrape(`Bearer ${TOKEN}`)).text)
      expect(total(after, "platform_delivery_queue_due", { queue: "normalized" })).toBe(due + 3)
      expect(total(after, "platform_delivery_queue_oldest_due_seconds", { queue: "normalized" })).toBeGreaterThanOrEqual(180)
    }))
})
