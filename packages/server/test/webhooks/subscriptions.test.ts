import { verify as octokitVerify } from "@octokit/webhooks-methods"
import { SqlClient } from "@effect/sql"
import { createHmac } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { CUSTOM_HEADERS_MAX_BYTES, TARGET_URL_MAX } from "@platform/shared"
import { Effect, TestClock, TestContext } from "effect"
import { AutoPause } from "../../src/delivery/auto-pause.js"
import { Subscriptions } from "../../src/webhooks/subscriptions.js"
import { createKey, request } from "../auth/support.js"
import { drainDeliveries } from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"
import { webhookDeveloper, WebhooksTestServer } from "../support/webhooks.js"

/** The cursor a list gives for a row (DESIGN §5: opaque to clients, known here). */
const cursorOf = (id: number) => Buffer.from(`id:${id}`, "utf8").toString("base64url")

const base = "/platform/v1/webhooks/subscriptions"

const developer = webhookDeveloper("hooks")

layer(WebhooksTestServer, { excludeTestServices: true })("webhook subscription routes", (it) => {
  it.scoped("create is 201 with a whsec_ secret shown once; get, list, patch, delete", () =>
    Effect.gen(function*() {
      const { key, channelId } = yield* developer
      const created = yield* request("POST", base, {
        key,
        body: {
          target_url: "http://127.0.0.1:9/hook",
          event_types: ["message.sent", "message.read"],
          platform_channel_id: channelId,
          description: "orders",
          custom_headers: { "X-Tenant": "acme", "x-platform-signature": "forged", AUTHORIZATION: "x", "Content-Type": "x" },
          buffer_window_seconds: 5,
          buffer_max_batch: 10,
          inactivity_minutes: 30
        }
      })
      expect(created.status).toBe(201)
      expect(created.body.secret).toMatch(/^whsec_/)
      expect(Buffer.from(created.body.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(32)
      expect(created.body).toMatchObject({
        platform_channel_id: channelId,
        custom_headers: { "X-Tenant": "acme" },
        is_active: true,
        is_paused: false,
        paused_reason: null,
        failure_count: 0,
        last_delivery_at: null
      })
      const id = created.body.id
      const got = yield* request("GET", `${base}/${id}`, { key })
      expect(got.status).toBe(200)
      expect(got.body.secret).toBeUndefined()
      expect(got.text).not.toContain("secret")

      const patched = yield* request("PATCH", `${base}/${id}`, { key, body: { event_types: [], is_active: false } })
      expect(patched.status).toBe(200)
      expect(patched.body).toMatchObject({ event_types: [], is_active: false, description: "orders" })
      const cleared = yield* request("PATCH", `${base}/${id}`, { key, body: { description: null, custom_headers: null } })
      expect(cleared.status).toBe(200)
      expect(cleared.body).toMatchObject({ description: null, custom_headers: null, buffer_window_seconds: 5 })

      for (let i = 0; i < 3; i++) yield* request("POST", base, { key, body: { target_url: `http://127.0.0.1:9/h${i}` } })
      const page1 = yield* request("GET", `${base}?limit=2`, { key })
      expect(page1.body.data).toHaveLength(2)
      expect(page1.body.has_more).toBe(true)
      const page2 = yield* request("GET", `${base}?limit=2&after=${page1.body.next_cursor}`, { key })
      expect(page2.body).toMatchObject({ has_more: false, next_cursor: null })
      expect([...page1.body.data, ...page2.body.data].map((s: { id: number }) => s.id)).toEqual(
        [id + 3, id + 2, id + 1, id]
      )

      expect((yield* request("DELETE", `${base}/${id}`, { key })).status).toBe(204)
      expect((yield* request("GET", `${base}/${id}`, { key })).status).toBe(404)
    }))

  it.scoped("lists page back with before: the rows nearest the cursor, newest first, and a next_cursor going on towards newer rows", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      for (let i = 0; i < 5; i++) yield* request("POST", base, { key, body: { target_url: `http://127.0.0.1:9/p${i}` } })
      const ids = (yield* request("GET", base, { key })).body.data.map((s: { id: number }) => s.id) as Array<number>
      const idsOf = (page: { data: ReadonlyArray<{ id: number }> }) => page.data.map((s) => s.id)
      // Forwards to the oldest row, then back from it.
      let page = (yield* request("GET", `${base}?limit=4`, { key })).body
      page = (yield* request("GET", `${base}?limit=4&after=${page.next_cursor}`, { key })).body
      expect(idsOf(page)).toEqual([ids[4]])
      const oldest = cursorOf(ids[4]!)
      page = (yield* request("GET", `${base}?limit=2&before=${oldest}`, { key })).body
      expect(idsOf(page)).toEqual([ids[2], ids[3]])
      expect(page).toMatchObject({ has_more: true, next_cursor: cursorOf(ids[2]!) })
      page = (yield* request("GET", `${base}?limit=2&before=${page.next_cursor}`, { key })).body
      expect(idsOf(page)).toEqual([ids[0], ids[1]])
      expect(page).toMatchObject({ has_more: false, next_cursor: null })
      // Nothing is newer than the newest row.
      expect((yield* request("GET", `${base}?before=${cursorOf(ids[0]!)}`, { key })).body).toEqual({
        data: [],
        has_more: false,
        next_cursor: null
      })
      // Both: the rows between them, in list order.
      page = (yield* request("GET", `${base}?after=${cursorOf(ids[0]!)}&before=${oldest}`, { key })).body
      expect(idsOf(page)).toEqual([ids[1], ids[2], ids[3]])
      expect(page).toMatchObject({ has_more: false, next_cursor: null })
      // A cursor the API did not issue is a 422 at it, not an empty page that reads as the end of the list.
      for (const param of ["after", "before"]) {
        const bad = yield* request("GET", `${base}?${param}=not-a-cursor`, { key })
        expect(bad.status).toBe(422)
        expect(bad.body.detail).toMatchObject([{ loc: ["query", param], input: "not-a-cursor" }])
      }
    }))

  it.scoped("validation: unknown event type, bounds, foreign channel and the SSRF guard are 422", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const other = yield* developer
      const cases: ReadonlyArray<[Record<string, unknown>, ReadonlyArray<string | number>]> = [
        [{ target_url: "http://127.0.0.1:9/h", event_types: ["message.nope"] }, ["body", "event_types", 0]],
        [{ target_url: "http://127.0.0.1:9/h", buffer_window_seconds: 61 }, ["body", "buffer_window_seconds"]],
        [{ target_url: "http://127.0.0.1:9/h", buffer_max_batch: 0 }, ["body", "buffer_max_batch"]],
        [{ target_url: "http://127.0.0.1:9/h", inactivity_minutes: 1441 }, ["body", "inactivity_minutes"]],
        [{ target_url: "http://127.0.0.1:9/h", description: "x".repeat(201) }, ["body", "description"]],
        [{ target_url: "http://127.0.0.1:9/h", description: " \n " }, ["body", "description"]],
        [{ target_url: "http://127.0.0.1:9/h", platform_channel_id: other.channelId }, ["body", "platform_channel_id"]],
        [{ target_url: "http://169.254.169.254/latest/meta-data" }, ["body", "target_url"]],
        [{ target_url: "ftp://example.com/hook" }, ["body", "target_url"]],
        [{ target_url: "x".repeat(2084) }, ["body", "target_url"]],
        [{ target_url: "  http://127.0.0.1:9/h" }, ["body", "target_url"]],
        [{ target_url: "http://127.0.0.1:9/h\t" }, ["body", "target_url"]]
      ]
      for (const [body, loc] of cases) {
        const reply = yield* request("POST", base, { key, body })
        expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(loc)
        expect(reply.body.detail, "one issue per bad value").toHaveLength(1)
      }
      const created = yield* request("POST", base, { key, body: { target_url: "http://127.0.0.1:9/h" } })
      const patch = yield* request("PATCH", `${base}/${created.body.id}`, {
        key,
        body: { target_url: "http://10.0.0.5/hook" }
      })
      expect(patch.status).toBe(422)
      expect(patch.body.detail[0].loc).toEqual(["body", "target_url"])
      const blank = yield* request("PATCH", `${base}/${created.body.id}`, { key, body: { description: "" } })
      expect(blank.status).toBe(422)
      expect(blank.body.detail).toMatchObject([{ loc: ["body", "description"], msg: "must not be empty or only whitespace" }])
    }))

  it.scoped("target_url is bounded at 2083 characters, not UTF-16 units: a URL of 2083 characters with emoji is accepted", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const prefix = "http://127.0.0.1:9/"
      const url = (chars: number) => prefix + "\u{1F600}".repeat(chars - prefix.length)
      expect([...url(TARGET_URL_MAX)]).toHaveLength(TARGET_URL_MAX)
      const fits = yield* request("POST", base, { key, body: { target_url: url(TARGET_URL_MAX) } })
      expect(fits.status).toBe(201)
      expect(fits.body.target_url).toBe(url(TARGET_URL_MAX))
      const over = yield* request("POST", base, { key, body: { target_url: url(TARGET_URL_MAX + 1) } })
      expect(over.status).toBe(422)
      expect(over.body.detail).toMatchObject([{ loc: ["body", "target_url"], msg: `must be 1 to ${TARGET_URL_MAX} characters` }])
    }))

  it.scoped("a PATCH or rotation in the same millisecond as the previous write still reaches the dispatcher (new URL, new secret)", () =>
    Effect.gen(function*() {
      const first = yield* startReceiver()
      const second = yield* startReceiver()
      const { accountId, key } = yield* developer
      const created = yield* request("POST", base, { key, body: { target_url: first.url } })
      const id = created.body.id
      const subscriptions = yield* Subscriptions
      // Every write below is stamped with the same millisecond, past the rows' wall-clock due time.
      yield* TestClock.setTime(Date.now() + 1000)
      const sendTest = Effect.gen(function*() {
        yield* subscriptions.test(accountId, id)
        yield* drainDeliveries()
      })
      yield* subscriptions.update(accountId, id, { description: "v1" })
      yield* sendTest
      expect(first.received).toHaveLength(1)
      yield* subscriptions.update(accountId, id, { target_url: second.url })
      yield* sendTest
      expect(first.received).toHaveLength(1)
      expect(second.received).toHaveLength(1)
      const { secret } = yield* subscriptions.rotateSecret(accountId, id)
      yield* sendTest
      const last = second.received[1]!
      expect(last.headers["x-platform-signature"]).toBe(
        "sha256=" + createHmac("sha256", secret!).update(last.body).digest("hex")
      )
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.scoped("buffer_max_batch without buffer_window_seconds is 422 at create and PATCH (it would never batch); both null turn buffering off", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const target_url = "http://127.0.0.1:9/h"
      const alone = yield* request("POST", base, { key, body: { target_url, buffer_max_batch: 10 } })
      expect(alone.status).toBe(422)
      expect(alone.body.detail).toEqual([{
        loc: ["body", "buffer_max_batch"],
        msg: "buffer_max_batch applies to buffered subscriptions only: set buffer_window_seconds (1..60) too",
        type: "value_error",
        input: 10,
        ctx: {}
      }])
      const plain = yield* request("POST", base, { key, body: { target_url } })
      const patched = yield* request("PATCH", `${base}/${plain.body.id}`, { key, body: { buffer_max_batch: 10 } })
      expect(patched.status).toBe(422)
      expect(patched.body.detail[0].loc).toEqual(["body", "buffer_max_batch"])

      const buffered = yield* request("POST", base, { key, body: { target_url, buffer_window_seconds: 5, buffer_max_batch: 10 } })
      expect(buffered.status).toBe(201)
      const windowOff = yield* request("PATCH", `${base}/${buffered.body.id}`, { key, body: { buffer_window_seconds: null } })
      expect(windowOff.status).toBe(422)
      expect(windowOff.body.detail[0].loc).toEqual(["body", "buffer_window_seconds"])
      expect((yield* request("GET", `${base}/${buffered.body.id}`, { key })).body).toMatchObject({
        buffer_window_seconds: 5,
        buffer_max_batch: 10
      })
      const off = yield* request("PATCH", `${base}/${buffered.body.id}`, {
        key,
        body: { buffer_window_seconds: null, buffer_max_batch: null }
      })
      expect(off.status).toBe(200)
      expect(off.body).toMatchObject({ buffer_window_seconds: null, buffer_max_batch: null })
      // A window alone is fine (batches of up to 100).
      expect((yield* request("PATCH", `${base}/${buffered.body.id}`, { key, body: { buffer_window_seconds: 3 } })).status).toBe(200)
    }))

  it.scoped("custom headers no request could carry, or naming one header twice, are 422 at create and PATCH, naming the header and the character", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const target_url = "http://127.0.0.1:9/h"
      const cases: ReadonlyArray<[unknown, string]> = [
        [["X-A: 1"], "Expected an object of header names to string values, actual [\"X-A: 1\"]"],
        ["X-A: 1", "Expected an object of header names to string values, actual \"X-A: 1\""],
        [{ "X-Uni": "日本" }, "the value of \"X-Uni\" contains U+65E5, which a header value cannot carry"],
        [{ "X-Ctl": "a\u0001b" }, "the value of \"X-Ctl\" contains U+0001, which a header value cannot carry"],
        [{ "X-Line": "a\r\nX-Injected: 1" }, "the value of \"X-Line\" contains a line break, which a header value cannot carry"],
        [{ "X Bad": "v" }, "\"X Bad\" is not a valid header name"],
        [{ "X-Tenant": "a", "x-tenant": "b" }, "\"X-Tenant\" and \"x-tenant\" are the same header (names are case-insensitive)"],
        [{ "X-Big": "v".repeat(CUSTOM_HEADERS_MAX_BYTES) }, `custom headers may total at most ${CUSTOM_HEADERS_MAX_BYTES} bytes`],
        [{ "X-A": 1 }, "Expected string, actual 1"]
      ]
      const created = yield* request("POST", base, { key, body: { target_url } })
      for (const [headers, msg] of cases) {
        for (const reply of [
          yield* request("POST", base, { key, body: { target_url, custom_headers: headers } }),
          yield* request("PATCH", `${base}/${created.body.id}`, { key, body: { custom_headers: headers } })
        ]) {
          expect(reply.status, msg).toBe(422)
          expect(reply.body.detail).toHaveLength(1)
          expect(reply.body.detail[0].loc.slice(0, 2)).toEqual(["body", "custom_headers"])
          expect(reply.body.detail[0].msg).toBe(msg)
        }
      }
      // Latin-1 and tabs are allowed; exactly the size bound is allowed.
      const name = "X-Big"
      const fits = { "X-Latin": "caf\u00e9\tok", [name]: "v".repeat(CUSTOM_HEADERS_MAX_BYTES - name.length - "X-Latin".length - 7) }
      const ok = yield* request("PATCH", `${base}/${created.body.id}`, { key, body: { custom_headers: fits } })
      expect(ok.status).toBe(200)
      expect(ok.body.custom_headers).toEqual(fits)
    }))

  it.scoped("another account's subscription is 404; a key without manage:webhooks is 403; the cookie works", () =>
    Effect.gen(function*() {
      const a = yield* developer
      const b = yield* developer
      const created = yield* request("POST", base, { key: a.key, body: { target_url: "http://127.0.0.1:9/h" } })
      for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/resume"], ["POST", "/rotate-secret"], ["POST", "/test"]]) {
        const reply = yield* request(method!, `${base}/${created.body.id}${path}`, { key: b.key, ...(method === "PATCH" ? { body: {} } : {}) })
        expect(reply.status, `${method} ${path}`).toBe(404)
        expect(reply.body.detail.code).toBe("not_found")
      }
      const limited = yield* createKey(a.dev, { scopes: ["send:messages"] })
      const forbidden = yield* request("GET", base, { key: limited.key })
      expect(forbidden.status).toBe(403)
      expect(forbidden.body.detail.required_scope).toBe("manage:webhooks")
      expect((yield* request("GET", base, { cookie: a.dev.cookie })).status).toBe(200)
    }))

  it.scoped("resume clears an auto-pause and failure_count and is idempotent", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const created = yield* request("POST", base, { key, body: { target_url: "http://127.0.0.1:9/h" } })
      const sql = yield* SqlClient.SqlClient
      yield* sql`update webhook_subscriptions set is_paused = true, paused_reason = 'auto_paused_high_failure_rate',
        failure_count = 17 where id = ${created.body.id}`
      const first = yield* request("POST", `${base}/${created.body.id}/resume`, { key })
      expect(first.status).toBe(200)
      expect(first.body).toMatchObject({ is_paused: false, paused_reason: null, failure_count: 0 })
      const again = yield* request("POST", `${base}/${created.body.id}/resume`, { key })
      expect(again.status).toBe(200)
      expect(again.body).toMatchObject({ is_paused: false, paused_reason: null, failure_count: 0 })
    }))

  it.scoped("resume switches a subscription a 410 Gone switched off back on; one the developer switched off stays off", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const sql = yield* SqlClient.SqlClient
      const gone = yield* request("POST", base, { key, body: { target_url: "http://127.0.0.1:9/h" } })
      yield* sql`update webhook_subscriptions set is_active = false, paused_reason = 'receiver_gone_410', failure_count = 1
        where id = ${gone.body.id}`
      const resumed = yield* request("POST", `${base}/${gone.body.id}/resume`, { key })
      expect(resumed.status).toBe(200)
      expect(resumed.body).toMatchObject({ is_active: true, is_paused: false, paused_reason: null, failure_count: 0 })
      expect(resumed.body.updated_at).not.toBe(gone.body.updated_at)

      const off = yield* request("POST", base, { key, body: { target_url: "http://127.0.0.1:9/h", is_active: false } })
      const untouched = yield* request("POST", `${base}/${off.body.id}/resume`, { key })
      expect(untouched.status).toBe(200)
      expect(untouched.body).toMatchObject({ is_active: false, is_paused: false, paused_reason: null })
      expect(untouched.body.updated_at).toBe(off.body.updated_at)
    }))

  it.scoped("after resume the failure window starts afresh: the next failure does not pause again", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const created = yield* request("POST", base, { key, body: { target_url: "http://127.0.0.1:9/h" } })
      const id = created.body.id as number
      const sql = yield* SqlClient.SqlClient
      const autoPause = yield* AutoPause
      // 20 failed attempts a minute ago: paused.
      yield* sql`insert into delivery_attempt_counts (subscription_id, created_at, attempts, failures)
        values (${id}, now() - interval '1 minute', 20, 20)`
      expect(yield* autoPause.evaluate([id], new Date())).toEqual([id])
      expect((yield* request("POST", `${base}/${id}/resume`, { key })).body.is_paused).toBe(false)
      // One more failure right after: 1 of 1 in the window, not 21 of 21.
      yield* sql`insert into delivery_attempt_counts (subscription_id, created_at, attempts, failures) values (${id}, now(), 1, 1)`
      expect(yield* autoPause.evaluate([id], new Date())).toEqual([])
      expect((yield* request("GET", `${base}/${id}`, { key })).body).toMatchObject({ is_paused: false, paused_reason: null })
    }))

  it.scoped("rotate-secret returns a new secret once and keeps the previous one for 24 h", () =>
    Effect.gen(function*() {
      const { key } = yield* developer
      const created = yield* request("POST", base, { key, body: { target_url: "http://127.0.0.1:9/h" } })
      const rotated = yield* request("POST", `${base}/${created.body.id}/rotate-secret`, { key })
      expect(rotated.status).toBe(200)
      expect(rotated.body.secret).toMatch(/^whsec_/)
      expect(rotated.body.secret).not.toBe(created.body.secret)
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ hours: number }>`select extract(epoch from previous_secret_expires_at - now()) / 3600 as hours
        from webhook_subscriptions where id = ${created.body.id}`
      expect(Number(row!.hours)).toBeGreaterThan(23.9)
      expect((yield* request("GET", `${base}/${created.body.id}`, { key })).body.secret).toBeUndefined()
    }))

  it.scoped("test: unknown type 422, unconfigured 422 listing the configured types, a signed _test sample otherwise", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { key } = yield* developer
      const narrow = yield* request("POST", base, { key, body: { target_url: receiver.url, event_types: ["message.read", "channel.connected"] } })
      const unknown = yield* request("POST", `${base}/${narrow.body.id}/test?event_type=message.nope`, { key })
      expect(unknown.status).toBe(422)
      const unconfigured = yield* request("POST", `${base}/${narrow.body.id}/test?event_type=message.sent`, { key })
      expect(unconfigured.status).toBe(422)
      expect(unconfigured.body.detail).toMatchObject({
        code: "event_not_configured",
        configured_event_types: ["message.read", "channel.connected"]
      })
      const defaulted = yield* request("POST", `${base}/${narrow.body.id}/test`, { key })
      expect(defaulted.status).toBe(200)
      expect(defaulted.body).toMatchObject({ event_type: "message.read", status: "pending", attempts: 0 })

      const catchAll = yield* request("POST", base, { key, body: { target_url: receiver.url } })
      const received = yield* request("POST", `${base}/${catchAll.body.id}/test?event_type=message.received`, { key })
      expect(received.status).toBe(200)
      expect(received.body.event_id).toMatch(/^evt_[0-9a-f]{32}$/)
      yield* drainDeliveries()
      const deliveries = yield* receiver.waitFor(2)
      const sample = deliveries.find((r) => r.headers["x-platform-event-id"] === received.body.event_id)!
      const body = sample.body.toString("utf8")
      expect(JSON.parse(body)).toMatchObject({ event: "message.received", data: { _test: true } })
      expect(yield* Effect.promise(() => octokitVerify(catchAll.body.secret, body, String(sample.headers["x-platform-signature"]))))
        .toBe(true)
      const detail = yield* request("GET", `/platform/v1/webhooks/deliveries/${received.body.id}`, { key })
      expect(detail.body).toMatchObject({ status: "delivered", attempts: 1, response_status: 200 })

      // A message.failed sample carries the error a real failed status does: classified, like a send's 502.
      const failed = yield* request("POST", `${base}/${catchAll.body.id}/test?event_type=message.failed`, { key })
      const failedSample = yield* request("GET", `/platform/v1/webhooks/deliveries/${failed.body.id}?include=full_envelope`, { key })
      expect(failedSample.body.envelope.data).toMatchObject({
        status: "failed",
        _test: true,
        error: { error: "undeliverable", meta_code: 131026, meta_title: "Message undeliverable" }
      })
    }))

  it.scoped("deleting a subscription deletes its deliveries (redeliveries too) and attempts, not its sibling's; deleting an account deletes its events", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const receiver = yield* startReceiver()
      const { dev, key, channelId } = yield* developer
      const gone = yield* request("POST", base, { key, body: { target_url: receiver.url } })
      const kept = yield* request("POST", base, { key, body: { target_url: receiver.url } })
      for (const sub of [gone, kept]) {
        expect((yield* request("POST", `${base}/${sub.body.id}/test?event_type=message.sent`, { key })).status).toBe(200)
      }
      yield* drainDeliveries()
      yield* receiver.waitFor(2)
      const counts = (subscriptionId: number) =>
        sql<{ deliveries: number; attempts: number }>`
          select (select count(*) from webhook_deliveries where subscription_id = ${subscriptionId})::int as deliveries,
                 (select coalesce(sum(attempts), 0) from delivery_attempt_counts
                  where subscription_id = ${subscriptionId})::int as attempts`
          .pipe(Effect.map((rows) => rows[0]!))
      expect(yield* counts(gone.body.id)).toEqual({ deliveries: 1, attempts: 1 })
      // A redelivery names the row it repeats (redelivery_of): both go with the subscription.
      const [delivered] = yield* sql<{ id: number }>`select id from webhook_deliveries where subscription_id = ${gone.body.id}`
      const again = yield* request("POST", `/platform/v1/webhooks/deliveries/${delivered!.id}/redeliver`, { key })
      expect(again.status).toBe(201)
      expect(yield* counts(gone.body.id)).toEqual({ deliveries: 2, attempts: 1 })

      expect((yield* request("DELETE", `${base}/${gone.body.id}`, { key })).status).toBe(204)
      expect(yield* counts(gone.body.id)).toEqual({ deliveries: 0, attempts: 0 })
      expect(yield* counts(kept.body.id)).toEqual({ deliveries: 1, attempts: 1 })
      expect((yield* request("POST", `${base}/${gone.body.id}/test`, { key })).status).toBe(404)

      yield* sql`insert into events (event_id, developer_account_id, platform_channel_id, event_type, envelope)
        values (${`evt_${"0".repeat(24)}${String(dev.accountId).padStart(8, "0")}`}, ${dev.accountId}, ${channelId},
                'channel.connected', '{}'::jsonb)`
      yield* sql`delete from developer_accounts where id = ${dev.accountId}`
      const [left] = yield* sql<{ events: number; deliveries: number }>`
        select (select count(*) from events where developer_account_id = ${dev.accountId})::int as events,
               (select count(*) from webhook_deliveries where subscription_id = ${kept.body.id})::int as deliveries`
      expect(left).toEqual({ events: 0, deliveries: 0 })
    }))
})
