import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createKey, request, signup } from "../auth/support.js"
import {
  api,
  BROADCAST_TEMPLATE,
  broadcastRow,
  draftBody,
  draftWith,
  freshKey,
  freshTo,
  MessagingTestServer,
  recipientRows,
  setUsage,
  type Setup,
  setup,
  sharedSetup,
  sql,
  usageOf
} from "./support.js"

const ctx = sharedSetup("bc")

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString()

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("broadcast routes", (it) => {
  it.effect("POST /broadcasts creates a draft (201) with SPEC §2.7's fields; GET returns it", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const created = yield* api(s, "POST", "", draftBody(s))
      expect(created.status, created.text).toBe(201)
      expect(created.body).toMatchObject({
        name: "May promo",
        platform_channel_id: s.chat,
        template_name: BROADCAST_TEMPLATE,
        language_code: "en_US",
        status: "draft",
        recipient_count: 0,
        scheduled_at: null,
        started_at: null,
        completed_at: null
      })
      expect(typeof created.body.created_at).toBe("string")
      const got = yield* api(s, "GET", `/${created.body.id}`)
      expect(got.status).toBe(200)
      expect(got.body).toEqual(created.body)
    }))

  it.effect("a draft on a social channel is 400 chat_only; another account's channel is 404", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const social = yield* api(s, "POST", "", draftBody(s, { channel_id: s.social }))
      expect(social.status).toBe(400)
      expect(social.body.detail.code).toBe("chat_only")
      const other = yield* setup("bc-other")
      const foreign = yield* api(s, "POST", "", draftBody(s, { channel_id: other.chat }))
      expect(foreign.status).toBe(404)
      expect(foreign.body.detail.code).toBe("not_found")
    }))

  it.effect("another account's broadcast is the same 404 as a missing one on every route", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("bc-foreign")
      const id = yield* draftWith(other, [freshTo()])
      const calls: ReadonlyArray<readonly [string, string, unknown?]> = [
        ["GET", `/${id}`],
        ["POST", `/${id}/recipients`, { recipients: [{ to: freshTo() }] }],
        ["GET", `/${id}/recipients`],
        ["POST", `/${id}/schedule`, { scheduled_at: inSeconds(600) }],
        ["POST", `/${id}/send`],
        ["POST", `/${id}/cancel`]
      ]
      for (const [method, path, body] of calls) {
        for (const target of [path, path.replace(String(id), "999999999")]) {
          const reply = yield* api(s, method, target, body)
          expect(reply.status, `${method} ${target}`).toBe(404)
          expect(reply.body.detail.code).toBe("not_found")
        }
      }
      expect((yield* broadcastRow(id)).status).toBe("draft")
    }))

  it.effect("on the free plan every broadcast route is 403 plan_forbidden", () =>
    Effect.gen(function*() {
      const dev = yield* signup("bc-free")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const s = { dev, key, chat: 1, social: 2 } satisfies Setup
      const calls: ReadonlyArray<readonly [string, string, unknown?]> = [
        ["POST", "", draftBody(s)],
        ["GET", ""],
        ["GET", "/1"],
        ["POST", "/1/recipients", { recipients: [{ to: "15550001" }] }],
        ["GET", "/1/recipients"],
        ["POST", "/1/schedule", { scheduled_at: inSeconds(600) }],
        ["POST", "/1/send"],
        ["POST", "/1/cancel"]
      ]
      for (const [method, path, body] of calls) {
        const reply = yield* api(s, method, path, body)
        expect(reply.status, `${method} ${path}`).toBe(403)
        expect(reply.body.detail.code).toBe("plan_forbidden")
      }
    }))

  it.effect("GET /broadcasts is the list envelope, newest first, with cursors and channel_id/status filters", () =>
    Effect.gen(function*() {
      const s = yield* setup("bc-list")
      const ids: Array<number> = []
      for (let i = 0; i < 3; i++) ids.push(yield* draftWith(s, []))
      const first = yield* api(s, "GET", "?limit=2")
      expect(first.status).toBe(200)
      expect(first.body.data.map((b: any) => b.id)).toEqual([ids[2], ids[1]])
      expect(first.body.has_more).toBe(true)
      const second = yield* api(s, "GET", `?limit=2&after=${first.body.next_cursor}`)
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null })
      expect(second.body.data.map((b: any) => b.id)).toEqual([ids[0]])
      expect((yield* api(s, "GET", `?channel_id=${s.chat}&status=draft`)).body.data).toHaveLength(3)
      expect((yield* api(s, "GET", "?status=bogus")).body.data).toEqual([])
      const unknown = yield* api(s, "GET", "?colour=red")
      expect(unknown.status).toBe(422)
      const bad = yield* api(s, "GET", "?limit=201")
      expect(bad.status).toBe(422)
      expect(bad.body.detail[0].loc).toEqual(["query", "limit"])
    }))

  it.effect("the same Idempotency-Key and body replays the draft (Idempotent-Replayed) without a second row; another body is 422", () =>
    Effect.gen(function*() {
      const s = yield* setup("bc-idem")
      const q = yield* sql
      const key = freshKey()
      const first = yield* api(s, "POST", "", draftBody(s), { "idempotency-key": key })
      const retry = yield* api(s, "POST", "", draftBody(s), { "idempotency-key": key })
      expect([first.status, retry.status]).toEqual([201, 201])
      expect(retry.headers.get("idempotent-replayed")).toBe("true")
      expect(retry.text).toBe(first.text)
      const rows = yield* q<{ n: number }>`select count(*)::int as n from broadcasts where developer_account_id = ${s.dev.accountId}`
      expect(rows[0]!.n).toBe(1)
      const other = yield* api(s, "POST", "", draftBody(s, { name: "other" }), { "idempotency-key": key })
      expect(other.status).toBe(422)
      expect(other.body.detail.code).toBe("idempotency_key_reused")
    }))

  it.effect("components that do not fit the channel's local template are 422 at the component, on the draft and on a recipient", () =>
    Effect.gen(function*() {
      const s = yield* setup("bc-tpl")
      const q = yield* sql
      yield* q`insert into templates (developer_account_id, platform_channel_id, name, language_code, category, components, parameter_format, meta_status)
        values (${s.dev.accountId}, ${s.chat}, 'order_update', 'en_US', 'utility',
          ${JSON.stringify([{ type: "BODY", text: "Hi {{1}}, order {{2}} ships today." }])}::jsonb, 'POSITIONAL', 'approved')`
      const short = [{ type: "body", parameters: [{ type: "text", text: "Ada" }] }]
      const fits = [{ type: "body", parameters: [{ type: "text", text: "Ada" }, { type: "text", text: "A-1" }] }]
      const draft = { template_name: "order_update", language_code: "en_US" }
      const refused = yield* api(s, "POST", "", draftBody(s, { ...draft, components: short }))
      expect(refused.status).toBe(422)
      expect(refused.body.detail[0].loc).toEqual(["body", "components", 0, "parameters"])
      const created = yield* api(s, "POST", "", draftBody(s, { ...draft, components: fits }))
      expect(created.status, created.text).toBe(201)
      const id = created.body.id
      const load = yield* api(s, "POST", `/${id}/recipients`, {
        recipients: [{ to: freshTo() }, { to: freshTo(), components: fits }, { to: freshTo(), components: short }]
      })
      expect(load.status).toBe(422)
      expect(load.body.detail.map((d: any) => d.loc)).toEqual([["body", "recipients", 2, "components", 0, "parameters"]])
      expect(yield* recipientRows(id)).toHaveLength(0)
      // A template the channel does not have is refused whatever the components (issue 42: it failed at send time).
      const unknown = yield* api(s, "POST", "", draftBody(s, { template_name: "no_such_template", components: short }))
      expect(unknown.status).toBe(422)
      expect(unknown.body.detail).toMatchObject({ code: "template_unusable", reason: "not_found", template_name: "no_such_template" })
    }))

  it.effect("recipients are deduplicated by to within a call and against those loaded before", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [])
      const [a, b, c] = [freshTo(), freshTo(), freshTo()]
      const first = yield* api(s, "POST", `/${id}/recipients`, { recipients: [{ to: a }, { to: b }, { to: a }] })
      expect(first.status, first.text).toBe(200)
      expect(first.body).toEqual({ added: 2, skipped: 1, recipient_count: 2 })
      const second = yield* api(s, "POST", `/${id}/recipients`, { recipients: [{ to: b }, { to: c }] })
      expect(second.body).toEqual({ added: 1, skipped: 1, recipient_count: 3 })
      expect((yield* recipientRows(id)).map((r) => r.to)).toEqual([a, b, c])
      expect((yield* api(s, "GET", `/${id}`)).body.recipient_count).toBe(3)
    }))

  it.effect("on a chat channel recipients are deduplicated by the digits of the number, within a call and against those loaded before; the first keeps its to as given", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [])
      const [a, b, c] = [freshTo(), freshTo(), freshTo()]
      const spaced = (to: string) => `+${to.slice(0, 1)} ${to.slice(1, 4)} ${to.slice(4, 7)} ${to.slice(7)}`
      const first = yield* api(s, "POST", `/${id}/recipients`, {
        recipients: [{ to: spaced(a) }, { to: `+${a}` }, { to: b }, { to: a }]
      })
      expect(first.status, first.text).toBe(200)
      expect(first.body).toEqual({ added: 2, skipped: 2, recipient_count: 2 })
      const dashed = (to: string) => `${to.slice(0, 1)}-${to.slice(1, 4)}-${to.slice(4, 7)}-${to.slice(7)}`
      const second = yield* api(s, "POST", `/${id}/recipients`, {
        recipients: [{ to: dashed(a) }, { to: `+${b}` }, { to: dashed(c) }, { to: c }]
      })
      expect(second.body).toEqual({ added: 1, skipped: 3, recipient_count: 3 })
      expect((yield* recipientRows(id)).map((r) => r.to)).toEqual([spaced(a), b, dashed(c)])
      expect((yield* api(s, "GET", `/${id}`)).body.recipient_count).toBe(3)
    }))

  it.effect("a number loaded again in another format does not count toward the plan's recipients per broadcast", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [])
      const tos = Array.from({ length: 999 }, (_, i) => `1555088${String(i).padStart(4, "0")}`)
      expect((yield* api(s, "POST", `/${id}/recipients`, { recipients: tos.map((to) => ({ to })) })).status).toBe(200)
      // lite: 1000. One new number (given twice) and one already loaded: 999 + 1, not 999 + 3.
      const last = "15550889999"
      const fits = yield* api(s, "POST", `/${id}/recipients`, {
        recipients: [{ to: `+${tos[0]}` }, { to: last }, { to: `+${last}` }]
      })
      expect(fits.status, fits.text).toBe(200)
      expect(fits.body).toEqual({ added: 1, skipped: 2, recipient_count: 1000 })
      // Full: a number already loaded is a duplicate, not one over the limit.
      const again = yield* api(s, "POST", `/${id}/recipients`, { recipients: [{ to: `+1 555 088 ${tos[5]!.slice(7)}` }] })
      expect(again.status, again.text).toBe(200)
      expect(again.body).toEqual({ added: 0, skipped: 1, recipient_count: 1000 })
      const over = yield* api(s, "POST", `/${id}/recipients`, { recipients: [{ to: `+${tos[7]}` }, { to: "15550887777" }] })
      expect(over.status).toBe(422)
      expect(over.body.detail[0]).toMatchObject({ ctx: { limit: 1000, recipient_count: 1000, adding: 1 } })
      expect(yield* recipientRows(id)).toHaveLength(1000)
    }))

  it.effect("a recipient whose to POST /messages would refuse (empty, only whitespace) is 422 at its index and the load adds nothing", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [])
      const load = yield* api(s, "POST", `/${id}/recipients`, {
        recipients: [{ to: freshTo() }, { to: freshTo() }, { to: freshTo() }, { to: "   " }, { to: freshTo() }]
      })
      expect(load.status, load.text).toBe(422)
      expect(load.body.detail).toMatchObject([{ loc: ["body", "recipients", 3, "to"], msg: "must not be empty or only whitespace", input: "   " }])
      expect(yield* recipientRows(id)).toHaveLength(0)
      const empty = yield* api(s, "POST", `/${id}/recipients`, { recipients: [{ to: freshTo() }, { to: "" }] })
      expect(empty.status).toBe(422)
      expect(empty.body.detail[0].loc).toEqual(["body", "recipients", 1, "to"])
      expect(yield* recipientRows(id)).toHaveLength(0)
      // The same `to` is refused by POST /messages at body.to: one rule for both.
      const direct = yield* request("POST", "/platform/v1/messages", {
        key: s.key,
        body: { channel_id: s.chat, to: "   ", type: "template", template_name: BROADCAST_TEMPLATE, language_code: "en_US" }
      })
      expect(direct.status).toBe(422)
      expect(direct.body.detail[0].loc).toEqual(["body", "to"])
    }))

  it.effect("a load of 0 or 1001 recipients is 422 at body.recipients and adds nothing", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [])
      for (const count of [0, 1001]) {
        const recipients = Array.from({ length: count }, (_, i) => ({ to: `1555066${String(i).padStart(4, "0")}` }))
        const reply = yield* api(s, "POST", `/${id}/recipients`, { recipients })
        expect(reply.status, String(count)).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(["body", "recipients"])
      }
      expect(yield* recipientRows(id)).toHaveLength(0)
    }))

  it.effect("beyond the plan's recipients per broadcast (lite: 1000) the load is 422 and nothing is added", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [])
      const batch = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => ({ to: `1555077${String(from + i).padStart(4, "0")}` }))
      expect((yield* api(s, "POST", `/${id}/recipients`, { recipients: batch(0, 600) })).status).toBe(200)
      // 100 already loaded + 500 new: 1100 > 1000.
      const over = yield* api(s, "POST", `/${id}/recipients`, { recipients: batch(500, 600) })
      expect(over.status).toBe(422)
      expect(over.body.detail[0]).toMatchObject({ loc: ["body", "recipients"], ctx: { limit: 1000, recipient_count: 600, adding: 500 } })
      expect(yield* recipientRows(id)).toHaveLength(600)
      const fits = yield* api(s, "POST", `/${id}/recipients`, { recipients: batch(500, 500) })
      expect(fits.body).toEqual({ added: 400, skipped: 100, recipient_count: 1000 })
    }))

  it.effect("SPEC §3.3 row by row: schedule, send and cancel from each state", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const empty = yield* draftWith(s, [])
      // draft or scheduled with zero recipients: 422 no_recipients.
      for (const [path, body] of [["schedule", { scheduled_at: inSeconds(600) }], ["send", undefined]] as const) {
        const reply = yield* api(s, "POST", `/${empty}/${path}`, body)
        expect(reply.status, path).toBe(422)
        expect(reply.body.detail.code).toBe("no_recipients")
      }

      const id = yield* draftWith(s, [freshTo()])
      // clearly past: 422 at scheduled_at; 30 s ago is clock skew and accepted.
      const past = yield* api(s, "POST", `/${id}/schedule`, { scheduled_at: inSeconds(-120) })
      expect(past.status).toBe(422)
      expect(past.body.detail[0].loc).toEqual(["body", "scheduled_at"])
      expect((yield* broadcastRow(id)).status).toBe("draft")
      const at = inSeconds(-30)
      const scheduled = yield* api(s, "POST", `/${id}/schedule`, { scheduled_at: at })
      expect(scheduled.status, scheduled.text).toBe(200)
      expect(scheduled.body).toMatchObject({ status: "scheduled", scheduled_at: at })

      // not draft → schedule 409; cancel of a draft 409.
      const again = yield* api(s, "POST", `/${id}/schedule`, { scheduled_at: inSeconds(600) })
      expect(again.status).toBe(409)
      expect(again.body.detail).toMatchObject({ code: "status_locked", status: "scheduled" })

      // scheduled → cancel → draft; draft → cancel 409.
      const cancelled = yield* api(s, "POST", `/${id}/cancel`)
      expect(cancelled.body).toMatchObject({ status: "draft", scheduled_at: null })
      const cancelDraft = yield* api(s, "POST", `/${id}/cancel`)
      expect(cancelDraft.status).toBe(409)
      expect(cancelDraft.body.detail).toMatchObject({ code: "status_locked", status: "draft" })

      // scheduled → send → 202 sending; sending → send/schedule 409; sending → cancel → draft.
      expect((yield* api(s, "POST", `/${id}/schedule`, { scheduled_at: inSeconds(600) })).status).toBe(200)
      const sent = yield* api(s, "POST", `/${id}/send`)
      expect(sent.status).toBe(202)
      expect(sent.body.status).toBe("sending")
      expect(sent.body.started_at).not.toBeNull()
      for (const [path, body] of [["send", undefined], ["schedule", { scheduled_at: inSeconds(600) }]] as const) {
        const reply = yield* api(s, "POST", `/${id}/${path}`, body)
        expect(reply.status, path).toBe(409)
        expect(reply.body.detail).toMatchObject({ code: "status_locked", status: "sending" })
      }
      expect((yield* api(s, "POST", `/${id}/cancel`)).body.status).toBe("draft")

      // draft → send → 202; completed and failed refuse send, schedule and cancel.
      expect((yield* api(s, "POST", `/${id}/send`)).status).toBe(202)
      const q = yield* sql
      for (const terminal of ["completed", "failed"]) {
        yield* q`update broadcasts set status = ${terminal} where id = ${id}`
        for (const [path, body] of [["send", undefined], ["schedule", { scheduled_at: inSeconds(600) }], ["cancel", undefined]] as const) {
          const reply = yield* api(s, "POST", `/${id}/${path}`, body)
          expect(reply.status, `${terminal} ${path}`).toBe(409)
          expect(reply.body.detail).toMatchObject({ code: "status_locked", status: terminal })
        }
        const load = yield* api(s, "POST", `/${id}/recipients`, { recipients: [{ to: freshTo() }] })
        expect(load.status).toBe(409)
      }
    }))

  it.effect("the monthly broadcasts quota is consumed once per broadcast; beyond it send and schedule are 403 plan_forbidden", () =>
    Effect.gen(function*() {
      const s = yield* setup("bc-quota")
      const id = yield* draftWith(s, [freshTo()])
      expect((yield* api(s, "POST", `/${id}/send`)).status).toBe(202)
      expect(yield* usageOf(s.dev.accountId, "broadcasts")).toBe(1)
      yield* api(s, "POST", `/${id}/cancel`)
      expect((yield* api(s, "POST", `/${id}/send`)).status).toBe(202)
      expect(yield* usageOf(s.dev.accountId, "broadcasts")).toBe(1)

      yield* setUsage(s.dev.accountId, "broadcasts", 20)
      const next = yield* draftWith(s, [freshTo()])
      for (const [path, body] of [["send", undefined], ["schedule", { scheduled_at: inSeconds(600) }]] as const) {
        const reply = yield* api(s, "POST", `/${next}/${path}`, body)
        expect(reply.status, path).toBe(403)
        expect(reply.body.detail.code).toBe("plan_forbidden")
      }
      expect((yield* broadcastRow(next)).status).toBe("draft")
      expect(yield* usageOf(s.dev.accountId, "broadcasts")).toBe(20)
    }))

  it.effect("POST /send with an Idempotency-Key replays its 202 (Idempotent-Replayed) instead of a 409", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const id = yield* draftWith(s, [freshTo()])
      const key = freshKey()
      const first = yield* api(s, "POST", `/${id}/send`, undefined, { "idempotency-key": key })
      const retry = yield* api(s, "POST", `/${id}/send`, undefined, { "idempotency-key": key })
      expect([first.status, retry.status]).toEqual([202, 202])
      expect(retry.headers.get("idempotent-replayed")).toBe("true")
      expect(retry.text).toBe(first.text)
      const plain = yield* api(s, "POST", `/${id}/send`)
      expect(plain.status).toBe(409)
      // A refused send (422 no_recipients) releases its key: the same request, once it can succeed, sends.
      const other = yield* draftWith(s, [])
      const refused = yield* api(s, "POST", `/${other}/send`, undefined, { "idempotency-key": "bk-refused" })
      expect(refused.status).toBe(422)
      yield* api(s, "POST", `/${other}/recipients`, { recipients: [{ to: freshTo() }] })
      expect((yield* api(s, "POST", `/${other}/send`, undefined, { "idempotency-key": "bk-refused" })).status).toBe(202)
    }))

  it.effect("the cookie of the dashboard is accepted as well as the key", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* request("GET", "/platform/v1/broadcasts", { cookie: s.dev.cookie })
      expect(reply.status).toBe(200)
      expect(Array.isArray(reply.body.data)).toBe(true)
    }))
})
