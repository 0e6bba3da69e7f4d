import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MessagingTestServer, request, sandboxSends, sandboxTemplate, send, type Setup, setup } from "./support.js"

const templateSend = (s: Setup, name: string, language = "en_US") =>
  send(s.key, { channel_id: s.chat, to: "15551239001", type: "template", template_name: name, language_code: language })

const sync = (s: Setup) => request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: s.chat } })

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("a template send naming a template the channel does not have", (it) => {
  it.effect("before any sync it goes to Meta, which answers 132001 (a 502 template_missing); after a sync it is 422 at template_name with a hint to sync, and no upstream call", () =>
    Effect.gen(function*() {
      const s = yield* setup("tsync")
      const upstreamFirst = yield* templateSend(s, "made_nowhere")
      expect(upstreamFirst.status).toBe(502)
      expect(upstreamFirst.body).toMatchObject({ error: "template_missing", meta_code: 132001 })

      yield* sandboxTemplate(s, "made_in_manager")
      const synced = yield* sync(s)
      expect(synced.status, synced.text).toBe(200)
      expect(synced.body).toMatchObject({ imported: 1 })

      const before = yield* sandboxSends
      for (const [name, language] of [["made_nowhere", "en_US"], ["made_in_manager", "pt_BR"]] as const) {
        const refused = yield* templateSend(s, name, language)
        expect(refused.status, refused.text).toBe(422)
        expect(refused.body.detail).toEqual([{
          loc: ["body", "template_name"],
          msg: expect.stringMatching(
            new RegExp(`^channel ${s.chat} has no template ${name} in ${language} \\(its templates were last synced at .+\\); ` +
              "create it with POST /platform/v1/templates, or run POST /platform/v1/templates/sync if it was made in WhatsApp Manager since$")
          ),
          type: "template_not_found",
          input: name,
          ctx: { language_code: language, templates_synced_at: expect.any(String) }
        }])
      }
      expect((yield* sandboxSends) - before).toBe(0)
      expect((yield* templateSend(s, "made_in_manager")).status).toBe(200)

      // Made in WhatsApp Manager after the sync: refused until the next sync brings it in.
      yield* sandboxTemplate(s, "made_later")
      expect((yield* templateSend(s, "made_later")).status).toBe(422)
      expect((yield* sync(s)).body).toMatchObject({ imported: 1 })
      expect((yield* templateSend(s, "made_later")).status).toBe(200)
    }))
})
