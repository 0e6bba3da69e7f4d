import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { currentPeriod } from "../../src/db/usage-period.js"
import { SANDBOX_MAGIC_RECIPIENTS } from "../../src/upstream/sandbox/magic.js"
import { MessagingTestServer, sandboxSends, sandboxTemplate, send, type Setup, setup as messagingSetup, sql } from "./support.js"

/** A template Meta has on every setup's WABA (sandboxTemplate) and the platform has no copy of: no local check. */
const UPSTREAM_ONLY_TEMPLATE = "unchecked_template"

const setup = (label: string) => Effect.tap(messagingSetup(label), (s) => sandboxTemplate(s, UPSTREAM_ONLY_TEMPLATE))

let ready: Setup | undefined
const ctx = Effect.suspend(() => (ready ? Effect.succeed(ready) : setup("idem").pipe(Effect.tap((s) => (ready = s)))))

let n = 0
const freshKey = () => `key-${Date.now().toString(36)}-${n++}`

const text = (s: Setup, body: string, to = "15550200001") => ({ channel_id: s.chat, to, type: "text", text: body })
const template = (s: Setup, to = "15550200009") => ({
  channel_id: s.chat,
  to,
  type: "template",
  template_name: UPSTREAM_ONLY_TEMPLATE,
  language_code: "en_US"
})

const templateUsage = (accountId: number) =>
  Effect.flatMap(sql, (q) =>
    q<{ used: number }>`
      select used from usage_counters
      where developer_account_id = ${accountId} and metric = 'template_messages' and period = ${currentPeriod()}::date`
  ).pipe(Effect.map((rows) => rows[0]?.used ?? 0))

const setUsage = (accountId: number, used: number) =>
  Effect.flatMap(sql, (q) =>
    q`
      insert into usage_counters (developer_account_id, period, metric, used)
      values (${accountId}, ${currentPeriod()}::date, 'template_messages', ${used})
      on conflict (developer_account_id, period, metric) do update set used = excluded.used`)

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("Idempotency-Key and template quota", (it) => {
  it.effect("a retry with the same key and body replays the first response with Idempotent-Replayed and no second upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const key = freshKey()
      const before = yield* sandboxSends
      const first = yield* send(s.key, text(s, "once"), { "idempotency-key": key })
      const retry = yield* send(s.key, { type: "text", text: "once", to: "15550200001", channel_id: s.chat }, { "idempotency-key": key })
      expect(first.status).toBe(200)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      expect(retry.status).toBe(200)
      expect(retry.headers.get("idempotent-replayed")).toBe("true")
      expect(retry.text).toBe(first.text)
      expect(retry.headers.get("x-ratelimit-limit")).toBe("100000")
      expect((yield* sandboxSends) - before).toBe(1)
      const rows = yield* q`select 1 from messages where meta_message_id = ${first.body.message_id}`
      expect(rows).toHaveLength(1)
    }))

  it.effect("the same key with a different body is 422 idempotency_key_reused", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const key = freshKey()
      expect((yield* send(s.key, text(s, "a"), { "idempotency-key": key })).status).toBe(200)
      const before = yield* sandboxSends
      const other = yield* send(s.key, text(s, "b"), { "idempotency-key": key })
      expect(other.status).toBe(422)
      expect(other.body.detail.code).toBe("idempotency_key_reused")
      expect(yield* sandboxSends).toBe(before)
    }))

  it.effect("parallel requests with one key make exactly one upstream call; the others are 409 or the replay", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const key = freshKey()
      const before = yield* sandboxSends
      const replies = yield* Effect.all(
        Array.from({ length: 6 }, () => send(s.key, text(s, "parallel"), { "idempotency-key": key })),
        { concurrency: "unbounded" }
      )
      expect((yield* sandboxSends) - before).toBe(1)
      const statuses = replies.map((r) => r.status)
      expect(statuses.every((status) => status === 200 || status === 409), String(statuses)).toBe(true)
      const fresh = replies.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null)
      expect(fresh).toHaveLength(1)
      for (const r of replies.filter((r) => r.status === 409)) expect(r.body.detail.code).toBe("idempotency_key_in_flight")
      for (const r of replies.filter((r) => r.status === 200)) expect(r.body).toEqual(fresh[0]!.body)
    }))

  it.effect("a 502 is kept and replayed too: the retry does not call the upstream again", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const key = freshKey()
      const before = yield* sandboxSends
      const body = text(s, "fails", SANDBOX_MAGIC_RECIPIENTS.reengagementRequired)
      const first = yield* send(s.key, body, { "idempotency-key": key })
      const retry = yield* send(s.key, body, { "idempotency-key": key })
      expect([first.status, retry.status]).toEqual([502, 502])
      expect(retry.headers.get("idempotent-replayed")).toBe("true")
      expect(retry.body).toEqual(first.body)
      expect((yield* sandboxSends) - before).toBe(1)
    }))

  it.effect("a send refused by the channel's own throttle never reached the upstream: no failed record, the key is released and its retry sends", () =>
    Effect.gen(function*() {
      const s = yield* setup("idem-throttle")
      const q = yield* sql
      // One send per second, and the throttle waits at most 1 s: of four at once, at least two are refused.
      yield* q`update platform_channels set throughput_per_second = 1 where id = ${s.chat}`
      const keys = [0, 1, 2, 3].map(() => freshKey())
      const replies = yield* Effect.forEach(keys, (key, i) => send(s.key, text(s, `burst ${i}`, "15550200077"), { "idempotency-key": key }), {
        concurrency: "unbounded"
      })
      const throttled = replies.flatMap((r, i) => (r.status === 502 ? [i] : []))
      expect(throttled.length, JSON.stringify(replies.map((r) => r.status))).toBeGreaterThanOrEqual(2)
      for (const i of throttled) expect(replies[i]!.body.error).toBe("upstream_throttled")
      const failed = yield* q<{ n: number }>`select count(*)::int as n from messages where platform_channel_id = ${s.chat} and status = 'failed'`
      expect(failed[0]!.n).toBe(0)

      yield* Effect.sleep("3 seconds")
      const i = throttled[0]!
      const retry = yield* send(s.key, text(s, `burst ${i}`, "15550200077"), { "idempotency-key": keys[i]! })
      expect(retry.status, retry.text).toBe(200)
      expect(retry.headers.get("idempotent-replayed")).toBeNull()
      expect(retry.body.message_id).toMatch(/^wamid\./)
    }))

  it.effect("a request refused before the upstream releases its key, so the corrected request may reuse it", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const key = freshKey()
      const refused = yield* send(s.key, { ...text(s, "x"), channel_id: s.social, type: "location", location: { latitude: 1, longitude: 2 } }, { "idempotency-key": key })
      expect(refused.status).toBe(400)
      const fixed = yield* send(s.key, text(s, "x"), { "idempotency-key": key })
      expect(fixed.status).toBe(200)
      expect(fixed.headers.get("idempotent-replayed")).toBeNull()
    }))

  it.effect("keys belong to the account: another account's identical key is independent", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("idem-other")
      const key = freshKey()
      const mine = yield* send(s.key, text(s, "mine"), { "idempotency-key": key })
      const theirs = yield* send(other.key, text(other, "theirs"), { "idempotency-key": key })
      expect([mine.status, theirs.status]).toEqual([200, 200])
      expect(theirs.headers.get("idempotent-replayed")).toBeNull()
      expect(theirs.body.message_id).not.toBe(mine.body.message_id)
    }))

  it.effect("an Idempotency-Key over 255 characters is 422 at header.idempotency-key", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* send(s.key, text(s, "long"), { "idempotency-key": "k".repeat(256) })
      expect(reply.status).toBe(422)
      expect(reply.body.detail[0].loc).toEqual(["header", "idempotency-key"])
    }))

  it.effect("with N template messages left, exactly N of many concurrent template sends pass and the rest are 429 not counted", () =>
    Effect.gen(function*() {
      const s = yield* setup("quota")
      const limit = 2_500 // lite
      const left = 3
      yield* setUsage(s.dev.accountId, limit - left)
      const before = yield* sandboxSends
      const replies = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => send(s.key, template(s, `1555020010${i}`))),
        { concurrency: "unbounded" }
      )
      const ok = replies.filter((r) => r.status === 200)
      const refused = replies.filter((r) => r.status === 429)
      expect(ok).toHaveLength(left)
      expect(refused).toHaveLength(10 - left)
      for (const r of refused) {
        expect(r.body.detail).toMatch(/^template quota exceeded/)
        expect(Object.keys(r.body)).toEqual(["detail"])
      }
      expect((yield* sandboxSends) - before).toBe(left)
      expect(yield* templateUsage(s.dev.accountId)).toBe(limit)
    }))

  it.effect("a template send the upstream refuses gives its quota back; text sends never count", () =>
    Effect.gen(function*() {
      const s = yield* setup("refund")
      const start = yield* templateUsage(s.dev.accountId)
      const failed = yield* send(s.key, template(s, SANDBOX_MAGIC_RECIPIENTS.templateMissing))
      expect(failed.status).toBe(502)
      expect(failed.body.error).toBe("template_missing")
      expect((yield* send(s.key, text(s, "free"))).status).toBe(200)
      expect(yield* templateUsage(s.dev.accountId)).toBe(start)
      expect((yield* send(s.key, template(s))).status).toBe(200)
      expect(yield* templateUsage(s.dev.accountId)).toBe(start + 1)
    }))
})
