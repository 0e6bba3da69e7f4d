import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { baseUrl, connectChat } from "../auth/support.js"
import { MessagingTestServer, request, send, type Setup, setup, sharedSetup, sql } from "../messages/support.js"

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 64 }, (_, i) => i)])

const ctx = sharedSetup("tpl")

let counter = 0
const uniqueName = (prefix = "tpl") => `${prefix}_${Date.now().toString(36)}_${counter++}`

const create = (key: string, body: Record<string, unknown>) => request("POST", "/platform/v1/templates", { key, body })

const fullComponents = [
  { type: "HEADER", format: "TEXT", text: "Order update" },
  { type: "BODY", text: "Hi {{1}}, order {{2}} has shipped", example: { body_text: [["Ana", "A-17"]] } },
  { type: "FOOTER", text: "Reply STOP to opt out" },
  { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Thanks" }, { type: "URL", text: "Track", url: "https://example.com/t/{{1}}", example: ["https://example.com/t/A-17"] }] }
]

/** Waits for the simulator's review callbacks, then pins the local and upstream status of a template. */
const pinStatus = (templateId: number, local: string, upstream: "PENDING" | "APPROVED" | "REJECTED") =>
  Effect.gen(function*() {
    const state = yield* SandboxState
    yield* state.awaitCallbacks
    const q = yield* sql
    const [row] = yield* q<{ meta_template_id: string }>`update templates set meta_status = ${local} where id = ${templateId}
      returning meta_template_id`
    state.templates.get(row!.meta_template_id)!.status = upstream
  })

const uploadHeader = (key: string, parts: ReadonlyArray<readonly [string, string | Blob, string?]>) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const form = new FormData()
      for (const [name, value, filename] of parts) {
        if (typeof value === "string") form.append(name, value)
        else form.append(name, value, filename)
      }
      const res = await fetch(`${base}/platform/v1/templates/header-media`, { method: "POST", headers: { "x-api-key": key }, body: form })
      const text = await res.text()
      return { status: res.status, text, body: text ? JSON.parse(text) : null }
    }))

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("templates over the sandbox upstream", (it) => {
  it.effect("POST with the legacy body shape submits one BODY with the variables as its example and stores the upstream snapshot", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const name = uniqueName("legacy")
      const reply = yield* create(s.key, {
        channel_id: s.chat,
        name,
        language_code: "en_US",
        category: "utility",
        body_text: "Your code {{1}} expires in {{2}} minutes",
        variables: ["1234", "10"]
      })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({
        id: expect.any(Number),
        name,
        language_code: "en_US",
        category: "utility",
        body_text: "Your code {{1}} expires in {{2}} minutes",
        variables: ["1234", "10"],
        components: null,
        parameter_format: null,
        header_format: null,
        is_active: true,
        platform_channel_id: s.chat,
        meta_status: "pending",
        meta_category: "utility",
        meta_template_id: expect.any(String),
        meta_rejection_reason: null,
        created_at: expect.any(String)
      })
      const upstream = state.templates.get(reply.body.meta_template_id)!
      expect(upstream).toMatchObject({
        name,
        language: "en_US",
        category: "UTILITY",
        components: [{ type: "BODY", text: "Your code {{1}} expires in {{2}} minutes", example: { body_text: [["1234", "10"]] } }]
      })
      const q = yield* sql
      const rows = yield* q<{ n: number }>`select count(*)::int as n from templates where name = ${name}`
      expect(rows[0]!.n).toBe(1)
    }))

  it.effect("POST with components submits them as given; body_text, variables and header_format follow the components", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const name = uniqueName("full")
      const reply = yield* create(s.key, {
        channel_id: s.chat,
        name,
        language_code: "pt_BR",
        category: "marketing",
        parameter_format: "POSITIONAL",
        body_text: "ignored at submit",
        components: fullComponents
      })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({
        category: "marketing",
        body_text: "Hi {{1}}, order {{2}} has shipped",
        variables: ["Ana", "A-17"],
        components: fullComponents,
        parameter_format: "POSITIONAL",
        header_format: "TEXT",
        meta_status: "pending"
      })
      expect(state.templates.get(reply.body.meta_template_id)!.components).toEqual(fullComponents)
      expect(state.templates.get(reply.body.meta_template_id)!.parameter_format).toBe("POSITIONAL")
    }))

  it.effect("an authentication template with components is accepted", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* create(s.key, {
        channel_id: s.chat,
        name: uniqueName("otp"),
        language_code: "en_US",
        category: "authentication",
        components: [
          { type: "BODY", add_security_recommendation: true },
          { type: "FOOTER", code_expiration_minutes: 10 },
          { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] }
        ]
      })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({ category: "authentication", body_text: "", meta_status: "pending" })
    }))

  const REFUSED: ReadonlyArray<readonly [string, (s: Setup, other: Setup) => Record<string, unknown>, ReadonlyArray<string | number>, RegExp]> = [
    ["a social channel", (s) => ({ channel_id: s.social, body_text: "Hi" }), ["body", "channel_id"], /social channel/],
    ["another account's channel", (_s, o) => ({ channel_id: o.chat, body_text: "Hi" }), ["body", "channel_id"], /not found/],
    ["a channel that does not exist", () => ({ channel_id: 987654321, body_text: "Hi" }), ["body", "channel_id"], /not found/],
    ["a channel id beyond any row's", () => ({ channel_id: 99999999999999999999, body_text: "Hi" }), ["body", "channel_id"], /./],
    ["the authentication category without components", () => ({ category: "authentication", body_text: "Code {{1}}", variables: ["1"] }), ["body", "components"], /requires components/],
    ["an IMAGE header without a handle", () => ({ components: [{ type: "HEADER", format: "IMAGE" }, { type: "BODY", text: "Hi" }] }), ["body", "components", 0, "example", "header_handle"], /header_handle/],
    ["BODY text in an authentication template", () => ({ category: "authentication", components: [{ type: "BODY", text: "Code" }] }), ["body", "components", 0, "text"], /forbidden/],
    ["two BODY components", () => ({ components: [{ type: "BODY", text: "a" }, { type: "BODY", text: "b" }] }), ["body", "components", 1, "type"], /at most one BODY/],
    ["a carousel of one card", () => ({ components: [{ type: "BODY", text: "a" }, { type: "CAROUSEL", cards: [{ components: [{ type: "BODY", text: "c" }] }] }] }), ["body", "components", 1, "cards"], /2 to 10 cards/],
    ["placeholders without example values", () => ({ body_text: "Hi {{1}}" }), ["body", "variables"], /1 placeholder/],
    ["an empty legacy body_text", () => ({ body_text: "" }), ["body", "body_text"], /empty/],
    ["a legacy body_text of only whitespace", () => ({ body_text: "  \n " }), ["body", "body_text"], /empty or only whitespace/],
    ["a BODY component whose text is only whitespace", () => ({ components: [{ type: "BODY", text: " " }] }), ["body", "components", 0, "text"], /empty or only whitespace/],
    ["a carousel card BODY with empty text", () => ({ components: [{ type: "BODY", text: "a" }, { type: "CAROUSEL", cards: [{ components: [{ type: "BODY", text: "c" }] }, { components: [{ type: "BODY", text: "" }] }] }] }), ["body", "components", 1, "cards", 1, "components", 0, "text"], /empty/],
    ["a language_code of only whitespace", () => ({ language_code: "  ", body_text: "Hi" }), ["body", "language_code"], /empty or only whitespace/],
    ["a BODY component with placeholders and no example", () => ({ components: [{ type: "BODY", text: "Hi {{1}}, order {{2}}" }] }), ["body", "components", 0, "example"], /2 placeholder/],
    ["a BODY example with more values than placeholders", () => ({ components: [{ type: "BODY", text: "Hi {{1}}", example: { body_text: [["Ana", "A-17"]] } }] }), ["body", "components", 0, "example", "body_text", 0], /1 placeholder.*2 given/],
    ["a NAMED BODY example missing a placeholder", () => ({ parameter_format: "NAMED", components: [{ type: "BODY", text: "Hi {{first_name}}, order {{order}}", example: { body_text_named_params: [{ param_name: "first_name", example: "Ana" }] } }] }), ["body", "components", 0, "example", "body_text_named_params"], /no sample for \{\{order\}\}/],
    ["a carousel card BODY with placeholders and no example", () => ({ components: [{ type: "BODY", text: "a" }, { type: "CAROUSEL", cards: [{ components: [{ type: "BODY", text: "c {{1}}" }] }, { components: [{ type: "BODY", text: "d" }] }] }] }), ["body", "components", 1, "cards", 0, "components", 0, "example"], /1 placeholder/],
    ["a named placeholder in the legacy body_text", () => ({ body_text: "Hi {{first_name}}", variables: ["Ana"] }), ["body", "body_text"], /named placeholder.*parameter_format NAMED/],
    ["a named placeholder in a template that is not NAMED", () => ({ components: [{ type: "BODY", text: "Hi {{first_name}}", example: { body_text: [["Ana"]] } }] }), ["body", "components", 0, "text"], /\{\{first_name\}\} is a named placeholder/],
    ["a name Meta refuses", () => ({ name: "Order Update", body_text: "Hi" }), ["body", "name"], /lower case/],
    ["an unknown field", () => ({ body_text: "Hi", colour: "red" }), ["body", "colour"], /./]
  ]
  for (const [label, body, loc, msg] of REFUSED) {
    it.effect(`POST with ${label} is 422 at ${loc.join(".")} and submits nothing upstream`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const other = yield* setup("tpl-other")
        const state = yield* SandboxState
        const before = state.templates.size
        const reply = yield* create(s.key, { channel_id: s.chat, name: uniqueName(), language_code: "en_US", category: "utility", ...body(s, other) })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(loc)
        expect(reply.body.detail[0].msg).toMatch(msg)
        expect(state.templates.size).toBe(before)
      }))
  }

  it.effect("POST on an inactive channel is 422 channel_unusable; a second template with the same name and language is 422 at name", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const third = yield* connectChat(s.dev)
      expect(third.status, third.text).toBe(201)
      const q = yield* sql
      yield* q`update platform_channels set is_active = false where id = ${third.body.channel_id}`
      const inactive = yield* create(s.key, { channel_id: third.body.channel_id, name: uniqueName(), language_code: "en_US", category: "utility", body_text: "Hi" })
      expect(inactive.status, inactive.text).toBe(422)
      expect(inactive.body.detail.code).toBe("channel_unusable")

      const name = uniqueName("twice")
      const first = yield* create(s.key, { channel_id: s.chat, name, language_code: "en_US", category: "utility", body_text: "Hi" })
      expect(first.status, first.text).toBe(200)
      const again = yield* create(s.key, { channel_id: s.chat, name, language_code: "en_US", category: "utility", body_text: "Hi" })
      expect(again.status, again.text).toBe(422)
      expect(again.body.detail[0].loc).toEqual(["body", "name"])
      const otherLanguage = yield* create(s.key, { channel_id: s.chat, name, language_code: "es", category: "utility", body_text: "Hola" })
      expect(otherLanguage.status, otherLanguage.text).toBe(200)
    }))

  it.effect("GET lists the account's templates newest first as a plain array, filters AND-combined; unknown values give []", () =>
    Effect.gen(function*() {
      const s = yield* setup("tpl-list")
      const other = yield* setup("tpl-list-other")
      const names = [uniqueName("la"), uniqueName("lb"), uniqueName("lc")]
      const ids: Array<number> = []
      for (const [i, name] of names.entries()) {
        const reply = yield* create(s.key, { channel_id: s.chat, name, language_code: i === 2 ? "es" : "en_US", category: i === 1 ? "marketing" : "utility", body_text: "Hi" })
        expect(reply.status, reply.text).toBe(200)
        ids.push(reply.body.id)
      }
      const theirs = yield* create(other.key, { channel_id: other.chat, name: uniqueName("theirs"), language_code: "en_US", category: "utility", body_text: "Hi" })
      expect(theirs.status).toBe(200)
      const state = yield* SandboxState
      yield* state.awaitCallbacks
      const q = yield* sql
      yield* q`update templates set meta_status = 'approved' where id = ${ids[0]!}`
      yield* q`update templates set meta_status = 'rejected', is_active = false where id = ${ids[1]!}`
      yield* q`update templates set meta_status = 'pending' where id = ${ids[2]!}`

      const list = (query: string) => request("GET", `/platform/v1/templates${query}`, { key: s.key })
      const all = yield* list("")
      expect(all.status, all.text).toBe(200)
      expect(Array.isArray(all.body)).toBe(true)
      expect(all.body.map((t: { id: number }) => t.id)).toEqual([...ids].reverse())

      const CASES: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
        [`?channel_id=${s.chat}`, [ids[2]!, ids[1]!, ids[0]!]],
        [`?name=${names[1]}`, [ids[1]!]],
        ["?language_code=es", [ids[2]!]],
        ["?category=marketing", [ids[1]!]],
        ["?status=approved", [ids[0]!]],
        ["?status=APPROVED", [ids[0]!]],
        ["?is_active=false", [ids[1]!]],
        ["?is_active=true&language_code=en_US", [ids[0]!]],
        ["?category=utility&status=pending", [ids[2]!]],
        ["?category=bogus", []],
        ["?status=paused", []],
        [`?channel_id=${other.chat}`, []],
        ["?channel_id=99999999", []],
        ["?name=nope", []]
      ]
      for (const [query, expected] of CASES) {
        const reply = yield* list(query)
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(reply.body.map((t: { id: number }) => t.id), query).toEqual(expected)
      }
      for (const query of ["?channel_id=x", "?is_active=maybe", "?colour=red", "?limit=5"]) {
        const reply = yield* list(query)
        expect(reply.status, `${query}: ${reply.text}`).toBe(422)
        expect(reply.body.detail[0].loc[0]).toBe("query")
      }
    }))

  it.effect("GET /templates/{id} answers the row; another account's or a missing id is the same 404; the cookie works too", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("tpl-get-other")
      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("get"), language_code: "en_US", category: "utility", body_text: "Hi" })
      const got = yield* request("GET", `/platform/v1/templates/${made.body.id}`, { key: s.key })
      expect(got.status, got.text).toBe(200)
      expect(got.body).toEqual({ ...made.body, meta_status: got.body.meta_status })
      const byCookie = yield* request("GET", `/platform/v1/templates/${made.body.id}`, { cookie: s.dev.cookie })
      expect(byCookie.status, byCookie.text).toBe(200)
      const foreign = yield* request("GET", `/platform/v1/templates/${made.body.id}`, { key: other.key })
      const missing = yield* request("GET", "/platform/v1/templates/987654321", { key: s.key })
      expect([foreign.status, missing.status]).toEqual([404, 404])
      expect(foreign.body).toEqual(missing.body)
      expect(foreign.body.detail.code).toBe("not_found")
      for (const [id, status] of [["abc", 422], ["99999999999999999999", 422], ["-1", 404]] as const) {
        const malformed = yield* request("GET", `/platform/v1/templates/${id}`, { key: s.key })
        expect(malformed.status, `${id}: ${malformed.text}`).toBe(status)
      }
    }))

  it.effect("PATCH of a pending template is 409 status_locked and changes nothing", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("locked"), language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }] })
      yield* pinStatus(made.body.id, "pending", "PENDING")
      const reply = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { components: [{ type: "BODY", text: "Hello" }] } })
      expect(reply.status, reply.text).toBe(409)
      expect(reply.body.detail).toMatchObject({ code: "status_locked", status: "pending" })
      const q = yield* sql
      const [row] = yield* q<{ components: unknown }>`select components from templates where id = ${made.body.id}`
      expect(row!.components).toEqual([{ type: "BODY", text: "Hi" }])
    }))

  it.effect("PATCH of an approved template re-submits the merged template upstream and returns the row pending again", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("edit"), language_code: "en_US", category: "marketing", components: fullComponents })
      yield* pinStatus(made.body.id, "approved", "APPROVED")
      const components = [{ type: "BODY", text: "Hello {{1}}", example: { body_text: [["Ana"]] } }]
      const reply = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { components, category: "utility" } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({
        id: made.body.id,
        category: "utility",
        components,
        body_text: "Hello {{1}}",
        variables: ["Ana"],
        header_format: null,
        meta_status: "pending",
        meta_template_id: made.body.meta_template_id,
        meta_rejection_reason: null
      })
      expect(state.templates.get(made.body.meta_template_id)).toMatchObject({ components, category: "UTILITY" })
      // The simulator reviews the edit moments later (a status callback): only meta_status may have moved.
      const got = yield* request("GET", `/platform/v1/templates/${made.body.id}`, { key: s.key })
      expect(got.body).toEqual({ ...reply.body, meta_status: got.body.meta_status })
    }))

  it.effect("PATCH that the upstream refuses is 200 with the row rejected and the upstream's reason", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("refused"), language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }] })
      // Approved here, still in review upstream: the simulator refuses the edit as Meta does.
      yield* pinStatus(made.body.id, "approved", "PENDING")
      const reply = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { body_text: "Hi there" } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({ id: made.body.id, meta_status: "rejected", body_text: "Hi there", meta_rejection_reason: expect.stringMatching(/can't be edited/) })
    }))

  it.effect("PATCH errors: a legacy row without components is 422 legacy_row_supply_components, a bad shape or a category the stored components do not fit 422, a foreign id 404", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("tpl-patch-other")
      const legacy = yield* create(s.key, { channel_id: s.chat, name: uniqueName("old"), language_code: "en_US", category: "utility", body_text: "Hi" })
      yield* pinStatus(legacy.body.id, "approved", "APPROVED")
      const supply = yield* request("PATCH", `/platform/v1/templates/${legacy.body.id}`, { key: s.key, body: { body_text: "Hello" } })
      expect(supply.status, supply.text).toBe(422)
      expect(supply.body.detail.code).toBe("legacy_row_supply_components")
      const supplied = yield* request("PATCH", `/platform/v1/templates/${legacy.body.id}`, { key: s.key, body: { components: [{ type: "BODY", text: "Hello" }] } })
      expect(supplied.status, supplied.text).toBe(200)
      expect(supplied.body).toMatchObject({ components: [{ type: "BODY", text: "Hello" }], meta_status: "pending" })

      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("shape"), language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }] })
      yield* pinStatus(made.body.id, "approved", "APPROVED")
      const shape = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { components: [{ type: "HEADER", format: "VIDEO" }, { type: "BODY", text: "Hi" }] } })
      expect(shape.status, shape.text).toBe(422)
      expect(shape.body.detail[0].loc).toEqual(["body", "components", 0, "example", "header_handle"])
      const category = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { category: "authentication" } })
      expect(category.status, category.text).toBe(422)
      expect(category.body.detail[0].loc).toEqual(["body", "category"])
      const crossStored = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { components: [{ type: "BODY" }] } })
      expect(crossStored.status, crossStored.text).toBe(422)
      expect(crossStored.body.detail[0].loc).toEqual(["body", "components", 0, "text"])

      const foreign = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: other.key, body: { body_text: "x" } })
      expect(foreign.status).toBe(404)
    }))

  it.effect("PATCH and DELETE of a template whose channel was disconnected are 422 channel_unusable and keep the row", () =>
    Effect.gen(function*() {
      const s = yield* setup("tpl-unusable")
      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("orphan"), language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }] })
      expect(made.status, made.text).toBe(200)
      yield* pinStatus(made.body.id, "approved", "APPROVED")
      const removed = yield* request("DELETE", `/platform/dashboard/channels/${s.chat}`, { cookie: s.dev.cookie })
      expect(removed.status, removed.text).toBeLessThan(300)
      const patched = yield* request("PATCH", `/platform/v1/templates/${made.body.id}`, { key: s.key, body: { body_text: "x" } })
      const deleted = yield* request("DELETE", `/platform/v1/templates/${made.body.id}`, { key: s.key })
      for (const reply of [patched, deleted]) {
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail.code).toBe("channel_unusable")
      }
      const got = yield* request("GET", `/platform/v1/templates/${made.body.id}`, { key: s.key })
      expect(got.body).toMatchObject({ meta_status: "approved", body_text: "Hi" })
    }))

  it.effect("DELETE of a template whose create is still waiting for the upstream is 409 status_locked and keeps it; a crashed create's leftover is deleted", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      // As create leaves the row while the upstream has not answered yet: pending, no upstream id.
      const [row] = yield* q<{ id: number }>`insert into templates (developer_account_id, platform_channel_id, name, language_code, category, body_text, meta_status)
        values (${s.dev.accountId}, ${s.chat}, ${uniqueName("submitting")}, 'en_US', 'utility', 'Hi', 'pending') returning id`
      const locked = yield* request("DELETE", `/platform/v1/templates/${row!.id}`, { key: s.key })
      expect(locked.status, locked.text).toBe(409)
      expect(locked.body.detail).toMatchObject({ code: "status_locked", status: "pending" })
      expect((yield* request("GET", `/platform/v1/templates/${row!.id}`, { key: s.key })).status).toBe(200)

      yield* q`update templates set created_at = now() - interval '3 minutes' where id = ${row!.id}`
      const deleted = yield* request("DELETE", `/platform/v1/templates/${row!.id}`, { key: s.key })
      expect(deleted.status, deleted.text).toBe(204)
      expect((yield* request("GET", `/platform/v1/templates/${row!.id}`, { key: s.key })).status).toBe(404)
    }))

  it.effect("DELETE of a row without the upstream id removes that language only, here and upstream, not the other languages of its name", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const q = yield* sql
      const name = uniqueName("langs")
      const en = yield* create(s.key, { channel_id: s.chat, name, language_code: "en_US", category: "utility", body_text: "Hi" })
      const es = yield* create(s.key, { channel_id: s.chat, name, language_code: "es", category: "utility", body_text: "Hola" })
      expect([en.status, es.status], en.text + es.text).toEqual([200, 200])
      yield* state.awaitCallbacks
      // As a crashed create (or an old row) leaves it: no upstream id, long past its create.
      yield* q`update templates set meta_template_id = null, created_at = now() - interval '3 minutes' where id = ${en.body.id}`

      const deleted = yield* request("DELETE", `/platform/v1/templates/${en.body.id}`, { key: s.key })
      expect(deleted.status, deleted.text).toBe(204)
      expect((yield* request("GET", `/platform/v1/templates/${en.body.id}`, { key: s.key })).status).toBe(404)
      const kept = yield* request("GET", `/platform/v1/templates/${es.body.id}`, { key: s.key })
      expect(kept.status, kept.text).toBe(200)
      const upstream = [...state.templates.values()].filter((t) => t.name === name).map((t) => t.language)
      expect(upstream).toEqual(["es"])
    }))

  it.effect("DELETE removes the template upstream and here (204); afterwards, and for another account, 404", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("tpl-del-other")
      const state = yield* SandboxState
      const made = yield* create(s.key, { channel_id: s.chat, name: uniqueName("del"), language_code: "en_US", category: "utility", body_text: "Hi" })
      const foreign = yield* request("DELETE", `/platform/v1/templates/${made.body.id}`, { key: other.key })
      expect(foreign.status).toBe(404)
      const reply = yield* request("DELETE", `/platform/v1/templates/${made.body.id}`, { key: s.key })
      expect(reply.status, reply.text).toBe(204)
      expect(reply.text).toBe("")
      expect(state.templates.has(made.body.meta_template_id)).toBe(false)
      const q = yield* sql
      expect((yield* q`select 1 from templates where id = ${made.body.id}`).length).toBe(0)
      const again = yield* request("DELETE", `/platform/v1/templates/${made.body.id}`, { key: s.key })
      expect(again.status).toBe(404)
    }))

  it.effect("POST /templates/sync imports the WABA's templates, and a second sync changes nothing (no duplicates); a change upstream is one update", () =>
    Effect.gen(function*() {
      const s = yield* setup("tpl-sync")
      const state = yield* SandboxState
      const q = yield* sql
      const [channel] = yield* q<{ waba_id: string }>`select waba_id from platform_channels where id = ${s.chat}`
      const waba = channel!.waba_id
      const seed = (id: string, name: string, language: string, status: "APPROVED" | "REJECTED" | "PENDING", category: string, components: ReadonlyArray<unknown>) =>
        state.templates.set(id, { id, waba_id: waba, name, language, category, status, components, parameter_format: null, rejected_reason: status === "REJECTED" ? "INVALID_FORMAT" : "NONE" })
      const base = `${Date.now()}`
      seed(`${base}1`, "welcome", "en_US", "APPROVED", "UTILITY", [{ type: "BODY", text: "Welcome {{1}}", example: { body_text: [["Ana"]] } }])
      seed(`${base}2`, "welcome", "es", "REJECTED", "UTILITY", [{ type: "BODY", text: "Bienvenido" }])
      seed(`${base}3`, "otp", "en_US", "APPROVED", "AUTHENTICATION", [
        { type: "BODY", text: "*{{1}}* is your code.", add_security_recommendation: true },
        { type: "FOOTER", text: "This code expires in 10 minutes.", code_expiration_minutes: 10 }
      ])
      seed(`${base}4`, "flow", "en_US", "APPROVED", "MARKETING", [{ type: "BODY", text: "Go" }, { type: "BUTTONS", buttons: [{ type: "FLOW", text: "Open", flow_id: "1" }] }])

      const sync = () => request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: s.chat } })
      const first = yield* sync()
      expect(first.status, first.text).toBe(200)
      expect(first.body).toEqual({ imported: 3, updated: 0, skipped: 1, total: 4 })
      const rows = yield* q<any>`select name, language_code, category, body_text, variables, meta_status, meta_category, meta_template_id,
        meta_rejection_reason, components from templates where platform_channel_id = ${s.chat} order by name, language_code`
      expect(rows).toEqual([
        {
          name: "otp", language_code: "en_US", category: "authentication", body_text: "*{{1}}* is your code.", variables: [],
          meta_status: "approved", meta_category: "authentication", meta_template_id: `${base}3`, meta_rejection_reason: null,
          components: [{ type: "BODY", text: "*{{1}}* is your code.", add_security_recommendation: true }, { type: "FOOTER", code_expiration_minutes: 10 }]
        },
        {
          name: "welcome", language_code: "en_US", category: "utility", body_text: "Welcome {{1}}", variables: ["Ana"],
          meta_status: "approved", meta_category: "utility", meta_template_id: `${base}1`, meta_rejection_reason: null,
          components: [{ type: "BODY", text: "Welcome {{1}}", example: { body_text: [["Ana"]] } }]
        },
        {
          name: "welcome", language_code: "es", category: "utility", body_text: "Bienvenido", variables: [],
          meta_status: "rejected", meta_category: "utility", meta_template_id: `${base}2`, meta_rejection_reason: "INVALID_FORMAT",
          components: [{ type: "BODY", text: "Bienvenido" }]
        }
      ])
      const listed = yield* request("GET", `/platform/v1/templates?channel_id=${s.chat}`, { key: s.key })
      expect(listed.status, listed.text).toBe(200)
      expect(listed.body).toHaveLength(3)

      const second = yield* sync()
      expect(second.body).toEqual({ imported: 0, updated: 0, skipped: 4, total: 4 })
      state.templates.get(`${base}2`)!.status = "APPROVED"
      const third = yield* sync()
      expect(third.body).toEqual({ imported: 0, updated: 1, skipped: 3, total: 4 })
      const [count] = yield* q<{ n: number }>`select count(*)::int as n from templates where platform_channel_id = ${s.chat}`
      expect(count!.n).toBe(3)
      const [es] = yield* q<{ meta_status: string; meta_rejection_reason: string | null }>`select meta_status, meta_rejection_reason from templates
        where platform_channel_id = ${s.chat} and name = 'welcome' and language_code = 'es'`
      expect(es).toEqual({ meta_status: "approved", meta_rejection_reason: null })
    }))

  it.effect("POST /templates/sync of a social, foreign or missing channel is 422 at channel_id", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("tpl-sync-other")
      for (const channelId of [s.social, other.chat, 987654321]) {
        const reply = yield* request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: channelId } })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(["body", "channel_id"])
      }
      const malformed = yield* request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: "x" } })
      expect(malformed.status).toBe(422)
    }))

  it.effect("POST /templates/header-media uploads the sample resumably and answers the handle a HEADER example takes", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const reply = yield* uploadHeader(s.key, [["channel_id", String(s.chat)], ["file", new Blob([PNG], { type: "image/png" }), "header.png"]])
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({ handle: expect.any(String) })
      expect([...state.uploads.values()].some((u) => u.handle === reply.body.handle && u.file_length === PNG.length)).toBe(true)
      const made = yield* create(s.key, {
        channel_id: s.chat,
        name: uniqueName("img"),
        language_code: "en_US",
        category: "marketing",
        components: [{ type: "HEADER", format: "IMAGE", example: { header_handle: [reply.body.handle] } }, { type: "BODY", text: "Look" }]
      })
      expect(made.status, made.text).toBe(200)
      expect(made.body.header_format).toBe("IMAGE")
    }))

  const HEADER_REFUSED: ReadonlyArray<readonly [string, (s: Setup) => ReadonlyArray<readonly [string, string | Blob, string?]>, string, RegExp]> = [
    ["a GIF", (s) => [["channel_id", String(s.chat)], ["file", new Blob([PNG], { type: "image/gif" }), "a.gif"]], "file", /unsupported header media type/],
    ["bytes that are not the declared type", (s) => [["channel_id", String(s.chat)], ["file", new Blob([PNG], { type: "image/jpeg" }), "a.jpg"]], "file", /not image\/jpeg/],
    ["a social channel", (s) => [["channel_id", String(s.social)], ["file", new Blob([PNG], { type: "image/png" }), "a.png"]], "channel_id", /social channel/],
    ["no file", (s) => [["channel_id", String(s.chat)]], "file", /required/],
    ["a file before channel_id", (s) => [["file", new Blob([PNG], { type: "image/png" }), "a.png"], ["channel_id", String(s.chat)]], "channel_id", /before file/]
  ]
  for (const [label, parts, loc, msg] of HEADER_REFUSED) {
    it.effect(`POST /templates/header-media with ${label} is 422 at body.${loc}`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const reply = yield* uploadHeader(s.key, parts(s))
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(["body", loc])
        expect(reply.body.detail[0].msg).toMatch(msg)
      }))
  }

  it.effect("POST /templates/header-media with a JSON body is 422, not a 500", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* request("POST", "/platform/v1/templates/header-media", { key: s.key, body: { channel_id: s.chat } })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail[0].loc).toEqual(["body", "file"])
    }))

  it.effect("a template send is checked against a template created here: a missing body parameter is 422, a complete send 200", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const name = uniqueName("send")
      const made = yield* create(s.key, { channel_id: s.chat, name, language_code: "en_US", category: "marketing", components: fullComponents })
      expect(made.status, made.text).toBe(200)
      const missing = yield* send(s.key, { channel_id: s.chat, to: "15551234567", type: "template", template_name: name, language_code: "en_US" })
      expect(missing.status, missing.text).toBe(422)
      expect(missing.body.detail[0].type).toBe("template_parameter_mismatch")
      const ok = yield* send(s.key, {
        channel_id: s.chat,
        to: "15551234567",
        type: "template",
        template_name: name,
        language_code: "en_US",
        components: [
          { type: "body", parameters: [{ type: "text", text: "Ana" }, { type: "text", text: "A-17" }] },
          { type: "button", sub_type: "url", index: 1, parameters: [{ type: "text", text: "A-17" }] }
        ]
      })
      expect(ok.status, ok.text).toBe(200)
    }))
})
