import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MessagingTestServer, sandboxSends, sandboxTemplate, send, type Setup, setup, sql } from "../messages/support.js"

let ready: Setup | undefined
const ctx = Effect.suspend(() =>
  ready
    ? Effect.succeed(ready)
    : Effect.gen(function*() {
      const s = yield* setup("tpl")
      const q = yield* sql
      const row = (name: string, format: string | null, components: unknown) =>
        q`insert into templates (developer_account_id, platform_channel_id, name, language_code, category, components, parameter_format, meta_status)
          values (${s.dev.accountId}, ${s.chat}, ${name}, 'en_US', 'utility', ${JSON.stringify(components)}::jsonb, ${format}, 'approved')`
      yield* row("order_update", "POSITIONAL", [
        { type: "HEADER", format: "TEXT", text: "Order {{1}}" },
        { type: "BODY", text: "Hi {{1}}, your order {{2}} ships today." },
        { type: "BUTTONS", buttons: [{ type: "URL", text: "Track", url: "https://shop.example/t/{{1}}" }, { type: "QUICK_REPLY", text: "Stop" }] }
      ])
      yield* row("welcome_named", "NAMED", [{ type: "BODY", text: "Welcome {{first_name}} to {{shop}}" }])
      yield* row("receipt_doc", "POSITIONAL", [{ type: "HEADER", format: "DOCUMENT" }, { type: "BODY", text: "Your receipt" }])
      yield* q`insert into templates (developer_account_id, platform_channel_id, name, language_code, category, body_text)
        values (${s.dev.accountId}, ${s.chat}, 'legacy_hello', 'en_US', 'utility', 'Hello {{1}}')`
      // Meta has them all; not_synced_here only Meta (made in WhatsApp Manager, never synced).
      for (const name of ["order_update", "welcome_named", "receipt_doc", "legacy_hello", "not_synced_here"]) yield* sandboxTemplate(s, name)
      ready = s
      return s
    })
)

const text = (value: string, name?: string) => (name === undefined ? { type: "text", text: value } : { type: "text", text: value, parameter_name: name })
const body = (...parameters: Array<unknown>) => ({ type: "body", parameters })
const header = (...parameters: Array<unknown>) => ({ type: "header", parameters })
const ORDER_OK = [header(text("A-1")), body(text("Ada"), text("A-1")), { type: "button", sub_type: "url", index: 0, parameters: [text("A-1")] }]

/** Sends against the local copies above; a mismatch is 422 at `loc` before any upstream call. */
const CASES: ReadonlyArray<readonly [string, string, ReadonlyArray<unknown> | undefined, ReadonlyArray<string | number> | null]> = [
  ["all parameters of a positional template pass", "order_update", ORDER_OK, null],
  ["one body parameter short", "order_update", [ORDER_OK[0], body(text("Ada")), ORDER_OK[2]], ["body", "components", 1, "parameters"]],
  ["one body parameter too many", "order_update", [ORDER_OK[0], body(text("a"), text("b"), text("c")), ORDER_OK[2]], ["body", "components", 1, "parameters"]],
  ["a parameter_name on a positional template", "order_update", [ORDER_OK[0], body(text("Ada", "name"), text("A-1", "order")), ORDER_OK[2]], ["body", "components", 1, "parameters", 0, "parameter_name"]],
  ["no body component when the body has placeholders", "order_update", [ORDER_OK[0], ORDER_OK[2]], ["body", "components"]],
  ["no header component when the header has a placeholder", "order_update", [ORDER_OK[1], ORDER_OK[2]], ["body", "components"]],
  ["a button index the template does not have", "order_update", [ORDER_OK[0], ORDER_OK[1], { type: "button", sub_type: "url", index: "5", parameters: [text("x")] }], ["body", "components", 2, "index"]],
  ["a sub_type other than the button's kind", "order_update", [ORDER_OK[0], ORDER_OK[1], { type: "button", sub_type: "quick_reply", index: 0, parameters: [{ type: "payload", payload: "p" }] }], ["body", "components", 2, "sub_type"]],
  ["named parameters with every name", "welcome_named", [body(text("Ada", "first_name"), text("Shop", "shop"))], null],
  ["a name the named template does not have", "welcome_named", [body(text("Ada", "first_name"), text("Shop", "store"))], ["body", "components", 0, "parameters", 1, "parameter_name"]],
  ["a missing name of a named template", "welcome_named", [body(text("Ada", "first_name"))], ["body", "components", 0, "parameters"]],
  ["a document header with its document", "receipt_doc", [header({ type: "document", document: { id: "1037543291543636", filename: "r.pdf" } })], null],
  ["a document header given an image", "receipt_doc", [header({ type: "image", image: { id: "1037543291543636" } })], ["body", "components", 0, "parameters"]],
  ["a legacy body_text row counts its placeholders", "legacy_hello", [body(text("a"), text("b"))], ["body", "components", 0, "parameters"]],
  ["a template without a local copy is left to the upstream", "not_synced_here", [body(text("a"))], null]
]

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("template parameters against the local template", (it) => {
  for (const [name, template, components, loc] of CASES) {
    it.effect(`${name}: ${loc === null ? "200" : `422 at ${loc.join(".")} without an upstream call`}`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const before = yield* sandboxSends
        const reply = yield* send(s.key, {
          channel_id: s.chat,
          to: "15550300001",
          type: "template",
          template_name: template,
          language_code: "en_US",
          ...(components === undefined ? {} : { components })
        })
        if (loc === null) {
          expect(reply.status, reply.text).toBe(200)
          expect((yield* sandboxSends) - before).toBe(1)
        } else {
          expect(reply.status, reply.text).toBe(422)
          expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc)
          expect(reply.body.detail[0].type).toBe("template_parameter_mismatch")
          expect((yield* sandboxSends) - before).toBe(0)
        }
      }))
  }

  it.effect("a refused template send consumes no quota", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const used = () => q<{ used: number }>`select coalesce(sum(used), 0)::int as used from usage_counters where developer_account_id = ${s.dev.accountId} and metric = 'template_messages'`
      const [before] = yield* used()
      const reply = yield* send(s.key, { channel_id: s.chat, to: "15550300002", type: "template", template_name: "welcome_named", language_code: "en_US", components: [] })
      expect(reply.status).toBe(422)
      const [after] = yield* used()
      expect(after!.used).toBe(before!.used)
    }))
})
