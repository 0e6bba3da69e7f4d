import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { approvedTemplate } from "../messages/support.js"
import { api, draftBody, draftWith, freshTo, MessagingTestServer, recipientRows, setup, sql } from "./support.js"

const NEEDS_NAME = "Hi {{1}}, your order has shipped"
const named = (name: string) => [{ type: "body", parameters: [{ type: "text", text: name }] }]

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("a broadcast's template is checked before any send", (it) => {
  it.effect("create is 422 template_unusable for a template the channel does not have (with a hint to sync) or one not approved", () =>
    Effect.gen(function*() {
      const s = yield* setup("bct-create")
      const missing = yield* api(s, "POST", "", draftBody(s, { template_name: "never_made" }))
      expect(missing.status).toBe(422)
      expect(missing.body.detail).toEqual({
        code: "template_unusable",
        reason: "not_found",
        template_name: "never_made",
        language_code: "en_US",
        message: `channel ${s.chat} has no template never_made in en_US: create it with POST /platform/v1/templates, ` +
          "or run POST /platform/v1/templates/sync if it was made in WhatsApp Manager"
      })
      // Another language of a template the channel has is not that template.
      expect((yield* api(s, "POST", "", draftBody(s, { language_code: "pt_BR" }))).body.detail).toMatchObject({ reason: "not_found", language_code: "pt_BR" })
      yield* approvedTemplate(s, "still_pending", { status: "pending" })
      const pending = yield* api(s, "POST", "", draftBody(s, { template_name: "still_pending" }))
      expect(pending.status).toBe(422)
      expect(pending.body.detail).toMatchObject({ code: "template_unusable", reason: "not_approved", meta_status: "pending" })
      expect(pending.body.detail.message).toContain("is pending, not approved")
    }))

  it.effect("schedule and send are 422 parameters_missing naming the recipients whose components (or the draft's) do not fill the template", () =>
    Effect.gen(function*() {
      const s = yield* setup("bct-params")
      yield* approvedTemplate(s, "shipped_named", { body: NEEDS_NAME })
      const created = yield* api(s, "POST", "", draftBody(s, { template_name: "shipped_named" }))
      expect(created.status, created.text).toBe(201)
      const id = created.body.id
      const [ada, bare1, bare2] = [freshTo(), freshTo(), freshTo()]
      const loaded = yield* api(s, "POST", `/${id}/recipients`, {
        recipients: [{ to: ada, components: named("Ada") }, { to: bare1 }, { to: bare2 }]
      })
      expect(loaded.status, loaded.text).toBe(200)
      const at = new Date(Date.now() + 3_600_000).toISOString()
      for (const reply of [yield* api(s, "POST", `/${id}/schedule`, { scheduled_at: at }), yield* api(s, "POST", `/${id}/send`)]) {
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail).toMatchObject({
          code: "template_unusable",
          reason: "parameters_missing",
          template_name: "shipped_named",
          recipients_missing: 2,
          recipients: [bare1, bare2],
          missing: ["template shipped_named expects 1 body parameter(s) ({{1}}); no body component was given"]
        })
      }
      const q = yield* sql
      expect((yield* q<{ status: string }>`select status from broadcasts where id = ${id}`)[0]!.status).toBe("draft")
      expect((yield* recipientRows(id)).map((r) => r.status)).toEqual(["pending", "pending", "pending"])

      // A draft whose own components fill the template covers the recipients without theirs.
      const covered = yield* api(s, "POST", "", draftBody(s, { template_name: "shipped_named", components: named("friend") }))
      yield* api(s, "POST", `/${covered.body.id}/recipients`, { recipients: [{ to: freshTo() }] })
      expect((yield* api(s, "POST", `/${covered.body.id}/schedule`, { scheduled_at: at })).status).toBe(200)
    }))

  it.effect("a template deleted or no longer approved after the draft is caught at send, and the broadcast stays a draft", () =>
    Effect.gen(function*() {
      const s = yield* setup("bct-later")
      yield* approvedTemplate(s, "soon_paused")
      const id = yield* draftWith(s, [freshTo()])
      const created = yield* api(s, "POST", "", draftBody(s, { template_name: "soon_paused" }))
      const q = yield* sql
      yield* q`update templates set meta_status = 'paused' where platform_channel_id = ${s.chat} and name = 'soon_paused'`
      yield* api(s, "POST", `/${created.body.id}/recipients`, { recipients: [{ to: freshTo() }] })
      const paused = yield* api(s, "POST", `/${created.body.id}/send`)
      expect(paused.status).toBe(422)
      expect(paused.body.detail).toMatchObject({ reason: "not_approved", meta_status: "paused" })
      yield* q`delete from templates where platform_channel_id = ${s.chat} and name = 'promo_update'`
      const gone = yield* api(s, "POST", `/${id}/send`)
      expect(gone.status).toBe(422)
      expect(gone.body.detail).toMatchObject({ reason: "not_found", template_name: "promo_update" })
      expect((yield* q<{ status: string }>`select status from broadcasts where id = ${id}`)[0]!.status).toBe("draft")
    }))
})
