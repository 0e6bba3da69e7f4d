import { expect, layer } from "@effect/vitest"
import { Scopes } from "@platform/shared"
import { Effect } from "effect"
import { SANDBOX_MAGIC_RECIPIENTS } from "../../src/upstream/sandbox/magic.js"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { connectChat, createKey } from "../auth/support.js"
import { MessagingTestServer, request, type Setup, setup, sql } from "../messages/support.js"

/** The eight chat-only channel operations (SPEC §4.8), each with a valid body. */
const OPERATIONS: ReadonlyArray<{ readonly method: string; readonly edge: string; readonly body?: unknown }> = [
  { method: "GET", edge: "health" },
  { method: "GET", edge: "profile" },
  { method: "POST", edge: "profile", body: { about: "Open 9 to 5" } },
  { method: "GET", edge: "display-name" },
  { method: "POST", edge: "display-name" },
  { method: "POST", edge: "block-users", body: { users: ["15551230001"] } },
  { method: "DELETE", edge: "block-users", body: { users: ["15551230001"] } },
  { method: "POST", edge: "two-factor", body: { pin: "246810" } }
]

const at = (channelId: number | string, edge: string) => `/platform/v1/channels/${channelId}/${edge}`

interface Context extends Setup {
  /** Another account's chat channel. */
  readonly foreign: number
  /** A chat channel of this account, disconnected. */
  readonly disconnected: number
  /** A connected chat channel of this account, marked inactive. */
  readonly inactive: number
  /** A key with every scope but manage:channels. */
  readonly withoutScope: string
  readonly phoneNumberId: string
}

let ready: Context | undefined
const ctx = Effect.suspend(() =>
  ready ? Effect.succeed(ready) : Effect.gen(function*() {
    const s = yield* setup("chanops")
    const other = yield* setup("chanops-other")
    const third = yield* connectChat(s.dev)
    if (third.status !== 201) throw new Error(`connect ${third.status} ${third.text}`)
    const gone = yield* request("DELETE", `/platform/dashboard/channels/${third.body.channel_id}`, { cookie: s.dev.cookie })
    if (gone.status >= 300) throw new Error(`disconnect ${gone.status} ${gone.text}`)
    const { key: withoutScope } = yield* createKey(s.dev, {
      scopes: Scopes.filter((scope) => scope !== "manage:channels"),
      rate_limit_per_minute: 100000
    })
    const fourth = yield* connectChat(s.dev)
    if (fourth.status !== 201) throw new Error(`connect ${fourth.status} ${fourth.text}`)
    const q = yield* sql
    yield* q`update platform_channels set is_active = false where id = ${fourth.body.channel_id}`
    const [line] = yield* q<{ phone_number_id: string }>`select phone_number_id from platform_channels where id = ${s.chat}`
    ready = {
      ...s,
      foreign: other.chat,
      disconnected: third.body.channel_id,
      inactive: fourth.body.channel_id,
      withoutScope,
      phoneNumberId: line!.phone_number_id
    }
    return ready
  })
)

/** Upstream calls the simulator received for this path suffix and method. */
const upstreamCalls = (method: string, suffix: string) =>
  Effect.map(SandboxState, (state) => state.calls.filter((c) => c.method === method && c.path.endsWith(suffix)).length)

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("channel operations against the sandbox upstream", (it) => {
  it.effect("GET health answers whether the channel can send, per entity, without the entities' upstream ids", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* request("GET", at(s.chat, "health"), { key: s.key })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({
        channel_id: s.chat,
        can_send_message: "AVAILABLE",
        entities: ["PHONE_NUMBER", "WABA", "BUSINESS", "APP"].map((entity_type) => ({
          entity_type,
          can_send_message: "AVAILABLE",
          errors: [],
          additional_info: []
        }))
      })
      expect(reply.text).not.toContain(s.phoneNumberId)
    }))

  it.effect("POST profile sends only the given fields and answers the profile the upstream now holds; GET reads it back", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const before = yield* request("GET", at(s.chat, "profile"), { key: s.key })
      expect(before.status, before.text).toBe(200)
      expect(before.body).toEqual({
        channel_id: s.chat,
        about: "Sandbox business",
        address: null,
        description: null,
        email: null,
        profile_picture_url: null,
        websites: [],
        vertical: null
      })

      const update = { about: "Open 9 to 5", email: "help@example.com", websites: ["https://example.com"], vertical: "RETAIL" }
      const updated = yield* request("POST", at(s.chat, "profile"), { key: s.key, body: update })
      expect(updated.status, updated.text).toBe(200)
      expect(updated.body).toEqual({ ...before.body, ...update })
      expect(state.profiles.get(s.phoneNumberId)).toMatchObject(update)
      expect(state.profiles.get(s.phoneNumberId)).not.toHaveProperty("address")

      const read = yield* request("GET", at(s.chat, "profile"), { key: s.key })
      expect(read.body).toEqual(updated.body)
    }))

  it.effect("POST profile with an empty body changes nothing upstream and answers the current profile", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const posts = yield* upstreamCalls("POST", "/whatsapp_business_profile")
      const reply = yield* request("POST", at(s.chat, "profile"), { key: s.key, body: {} })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.channel_id).toBe(s.chat)
      expect(yield* upstreamCalls("POST", "/whatsapp_business_profile")).toBe(posts)
    }))

  it.effect("GET display-name answers the name and its review state; POST display-name is 501 not_implemented", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* request("GET", at(s.chat, "display-name"), { key: s.key })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({
        channel_id: s.chat,
        verified_name: "Sandbox Business",
        display_phone_number: expect.stringMatching(/^\+1 555-/),
        name_status: "APPROVED",
        new_name_status: null
      })
      const submit = yield* request("POST", at(s.chat, "display-name"), { key: s.key, body: { display_name: "New name" } })
      expect(submit.status, submit.text).toBe(501)
      expect(submit.body).toEqual({ detail: { code: "not_implemented", message: expect.stringContaining("business manager") } })
    }))

  it.effect("POST block-users blocks each user once and DELETE unblocks them, answering per user", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const users = ["+1 555 123 0002", "15551230003", "15551230003"]
      const blocked = yield* request("POST", at(s.chat, "block-users"), { key: s.key, body: { users } })
      expect(blocked.status, blocked.text).toBe(200)
      expect(blocked.body).toEqual({
        channel_id: s.chat,
        succeeded: [{ user: "+1 555 123 0002", wa_id: "15551230002" }, { user: "15551230003", wa_id: "15551230003" }],
        failed: []
      })
      expect([...state.blocked.get(s.phoneNumberId)!].sort()).toEqual(["15551230002", "15551230003"])

      const unblocked = yield* request("DELETE", at(s.chat, "block-users"), { key: s.key, body: { users: ["15551230003"] } })
      expect(unblocked.status, unblocked.text).toBe(200)
      expect(unblocked.body).toEqual({ channel_id: s.chat, succeeded: [{ user: "15551230003", wa_id: "15551230003" }], failed: [] })
      expect([...state.blocked.get(s.phoneNumberId)!]).toEqual(["15551230002"])
    }))

  it.effect("block-users of a user the upstream refuses is a 200 listing that user as failed, the others blocked", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const refused = SANDBOX_MAGIC_RECIPIENTS.reengagementRequired
      const reply = yield* request("POST", at(s.chat, "block-users"), { key: s.key, body: { users: ["15551230004", refused] } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({
        channel_id: s.chat,
        succeeded: [{ user: "15551230004", wa_id: "15551230004" }],
        failed: [{ user: refused, errors: [{ code: 131047, message: "Re-engagement required: User has not messaged in the last 24 hours" }] }]
      })
      expect(state.blocked.get(s.phoneNumberId)!.has("15551230004")).toBe(true)
      expect(state.blocked.get(s.phoneNumberId)!.has(refused)).toBe(false)
    }))

  it.effect("POST two-factor registers the PIN upstream and never answers it", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const reply = yield* request("POST", at(s.chat, "two-factor"), { key: s.key, body: { pin: "975310" } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({ channel_id: s.chat, two_factor_enabled: true })
      expect(state.pins.get(s.phoneNumberId)).toBe("975310")
    }))

  it.effect("the dashboard cookie is accepted in place of a key", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* request("GET", at(s.chat, "display-name"), { cookie: s.dev.cookie })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.channel_id).toBe(s.chat)
    }))

  it.effect("every operation on another account's channel or a missing one is the same 404, with no upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const calls = state.calls.length
      for (const op of OPERATIONS) {
        const foreign = yield* request(op.method, at(s.foreign, op.edge), { key: s.key, body: op.body })
        const missing = yield* request(op.method, at(2_000_000_000, op.edge), { key: s.key, body: op.body })
        for (const reply of [foreign, missing]) {
          expect(reply.status, `${op.method} ${op.edge}: ${reply.text}`).toBe(404)
          expect(reply.body).toEqual({ detail: { code: "not_found", message: "channel not found" } })
        }
      }
      expect(state.calls.length).toBe(calls)
    }))

  it.effect("every operation on a social channel is 400 chat_only, with no upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const calls = state.calls.length
      for (const op of OPERATIONS) {
        const reply = yield* request(op.method, at(s.social, op.edge), { key: s.key, body: op.body })
        expect(reply.status, `${op.method} ${op.edge}: ${reply.text}`).toBe(400)
        expect(reply.body.detail.code).toBe("chat_only")
      }
      expect(state.calls.length).toBe(calls)
    }))

  it.effect("every operation on a disconnected or inactive channel is 422 channel_unusable, as a send on it is", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      for (const channelId of [s.disconnected, s.inactive]) {
        const send = yield* request("POST", "/platform/v1/messages", {
          key: s.key,
          body: { channel_id: channelId, to: "15551230001", type: "text", text: "hi" }
        })
        expect(send.status, send.text).toBe(422)
        for (const op of OPERATIONS) {
          const reply = yield* request(op.method, at(channelId, op.edge), { key: s.key, body: op.body })
          expect(reply.status, `${op.method} ${op.edge}: ${reply.text}`).toBe(422)
          expect(reply.body).toEqual(send.body)
          expect(reply.body.detail.code).toBe("channel_unusable")
        }
      }
    }))

  it.effect("every operation with a key lacking manage:channels is 403 missing_scope, with no upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const calls = state.calls.length
      for (const op of OPERATIONS) {
        const reply = yield* request(op.method, at(s.chat, op.edge), { key: s.withoutScope, body: op.body })
        expect(reply.status, `${op.method} ${op.edge}: ${reply.text}`).toBe(403)
        expect(reply.body).toEqual({ detail: { code: "missing_scope", message: expect.any(String), required_scope: "manage:channels" } })
      }
      expect(state.calls.length).toBe(calls)
    }))

  it.effect("block-users with 0 or 1001 users, or a blank user, is 422 at body.users on POST and DELETE", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const many = Array.from({ length: 1001 }, (_, i) => `1555000${String(i).padStart(4, "0")}`)
      const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string | number>]> = [
        [{ users: [] }, ["body", "users"]],
        [{ users: many }, ["body", "users"]],
        [{ users: ["15551230001", "  "] }, ["body", "users", 1]],
        [{}, ["body", "users"]]
      ]
      for (const method of ["POST", "DELETE"]) {
        for (const [body, loc] of cases) {
          const reply = yield* request(method, at(s.chat, "block-users"), { key: s.key, body })
          expect(reply.status, `${method} ${JSON.stringify(body).slice(0, 60)}: ${reply.text.slice(0, 300)}`).toBe(422)
          expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([loc])
        }
      }
      const exactly = yield* request("POST", at(s.chat, "block-users"), { key: s.key, body: { users: many.slice(0, 1000) } })
      expect(exactly.status, exactly.text.slice(0, 300)).toBe(200)
      expect(exactly.body.succeeded).toHaveLength(1000)
    }))

  it.effect("a PIN that is not exactly 6 ASCII digits is 422 at body.pin and never echoed back", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const pins: ReadonlyArray<unknown> = ["12345", "1234567", "12345a", "１２３４５６", "123456\n", 123456, "12345\u0000"]
      for (const pin of pins) {
        const reply = yield* request("POST", at(s.chat, "two-factor"), { key: s.key, body: { pin } })
        expect(reply.status, `${JSON.stringify(pin)}: ${reply.text}`).toBe(422)
        expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ["body", "pin"], input: null })])
        expect(reply.text).not.toContain(String(pin).slice(0, 5))
      }
      const missing = yield* request("POST", at(s.chat, "two-factor"), { key: s.key, body: { pin: "123456", extra: "x" } })
      expect(missing.status).toBe(422)
      expect(missing.text).not.toContain("123456")
    }))

  it.effect("a query parameter an operation does not take is 422 extra_forbidden at query.<name>, with no upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const calls = state.calls.length
      for (const op of [...OPERATIONS, { method: "PATCH", edge: "inbound", body: { enabled: true } }]) {
        const reply = yield* request(op.method, `${at(s.chat, op.edge)}?fields=about&pin=123456`, { key: s.key, body: op.body })
        expect(reply.status, `${op.method} ${op.edge}: ${reply.text}`).toBe(422)
        expect(reply.body.detail, `${op.method} ${op.edge}`).toEqual([
          expect.objectContaining({ loc: ["query", "fields"], type: "extra_forbidden", input: "about" }),
          expect.objectContaining({ loc: ["query", "pin"], type: "extra_forbidden", input: null })
        ])
      }
      expect(state.calls.length).toBe(calls)
    }))

  it.effect("a profile at SPEC's bounds counted in characters (emoji included) is accepted and stored as given", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const about = "🙂".repeat(139) // 139 characters, 278 UTF-16 code units
      const reply = yield* request("POST", at(s.chat, "profile"), { key: s.key, body: { about, address: "é".repeat(256) } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({ channel_id: s.chat, about, address: "é".repeat(256) })
      expect(state.profiles.get(s.phoneNumberId)).toMatchObject({ about })
      state.profiles.delete(s.phoneNumberId) // back to the sandbox's default profile for the other cases
    }))

  it.effect("a profile over SPEC's bounds is 422 at the field, before any upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const posts = yield* upstreamCalls("POST", "/whatsapp_business_profile")
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ about: "a".repeat(140) }, "about"],
        [{ address: "a".repeat(257) }, "address"],
        [{ description: "a".repeat(257) }, "description"],
        [{ email: "a".repeat(129) }, "email"],
        [{ websites: ["https://a.example", "https://b.example", "https://c.example"] }, "websites"],
        [{ phone: "1" }, "phone"]
      ]
      for (const [body, field] of cases) {
        const reply = yield* request("POST", at(s.chat, "profile"), { key: s.key, body })
        expect(reply.status, `${field}: ${reply.text}`).toBe(422)
        expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([["body", field]])
      }
      expect(yield* upstreamCalls("POST", "/whatsapp_business_profile")).toBe(posts)
    }))
})
