import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SANDBOX_EXPIRED_TOKEN, SANDBOX_MAGIC_CODES } from "../../src/upstream/sandbox/magic.js"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import {
  callCount,
  callsSince,
  capturedLogs,
  connectChat,
  connectSocial,
  createKey,
  request,
  SandboxTestServer,
  setPlan,
  signup
} from "../support/sandbox.js"

const channelRow = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ quality_rating: string | null; throughput_per_second: number | null; display_phone_number: string | null; name: string | null }>`
      select quality_rating, throughput_per_second, display_phone_number, name from platform_channels where id = ${id}`.pipe(
      Effect.map((rows) => rows[0]!)
    ))

const eventCount = (accountId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`select count(*)::int as n from events where developer_account_id = ${accountId}`.pipe(Effect.map((r) => r[0]!.n)))

layer(SandboxTestServer(), { timeout: 60_000 })("channel connect over the Upstream service and the sandbox simulator", (it) => {
  it.effect("a chat connect exchanges the code, registers the number, subscribes the app and persists what the number reports", () =>
    Effect.gen(function*() {
      const dev = yield* signup("connect")
      const { key } = yield* createKey(dev)
      const state = yield* SandboxState
      const before = yield* callCount
      const reply = yield* connectChat(dev, { pin: "246810" })
      expect(reply.status, reply.text).toBe(201)
      const pnid: string = reply.body.phone_number_id
      const waba: string = reply.body.waba_id
      expect(yield* callsSince(before)).toEqual([
        "POST /oauth/access_token",
        `POST /${pnid}/register`,
        `POST /${waba}/subscribed_apps`,
        `GET /${pnid}`
      ])
      expect(state.registered.has(pnid)).toBe(true)
      expect(state.pins.get(pnid)).toBe("246810")
      expect(state.subscribedWabas.has(waba)).toBe(true)
      // The simulator routes this number's callbacks by its WABA, as Meta does.
      expect(state.lineOf(pnid).waba_id).toBe(waba)
      expect(reply.body).toMatchObject({
        type: "chat",
        status: "active",
        name: "Sandbox Business",
        quality_rating: "GREEN",
        display_phone_number: expect.stringMatching(/^\+1 555-\d{3}-\d{4}$/)
      })
      expect(yield* channelRow(reply.body.channel_id)).toMatchObject({ quality_rating: "GREEN", throughput_per_second: 80 })
      const listed = yield* request("GET", "/platform/v1/channels", { key })
      expect(listed.status).toBe(200)
      expect(listed.body).toEqual([expect.objectContaining({ channel_id: reply.body.channel_id, type: "chat", quality_rating: "GREEN" })])
    }))

  it.effect("the quality rating stored is the one the upstream answers, and a PIN is generated when none is given", () =>
    Effect.gen(function*() {
      const dev = yield* signup("quality")
      const state = yield* SandboxState
      const pnid = `7${Date.now()}`
      state.qualityRatings.set(pnid, "YELLOW")
      const reply = yield* request("POST", "/platform/dashboard/channels/connect/chat", {
        cookie: dev.cookie,
        body: { code: "c", phone_number_id: pnid, waba_id: `W${pnid}` }
      })
      expect(reply.status, reply.text).toBe(201)
      expect(reply.body.quality_rating).toBe("YELLOW")
      expect((yield* channelRow(reply.body.channel_id)).quality_rating).toBe("YELLOW")
      expect(state.pins.get(pnid)).toMatch(/^\d{6}$/)
    }))

  it.effect("a malformed PIN is 422 before any upstream call", () =>
    Effect.gen(function*() {
      const dev = yield* signup("pin")
      const before = yield* callCount
      const reply = yield* connectChat(dev, { pin: "12ab" })
      expect(reply.status).toBe(422)
      expect(reply.body.detail[0].loc).toEqual(["body", "pin"])
      expect(yield* callCount).toBe(before)
    }))

  it.effect.each([
    { field: "code", body: { code: "  " }, social: false },
    { field: "phone_number_id", body: { phone_number_id: "\t" }, social: false },
    { field: "waba_id", body: { waba_id: " " }, social: false },
    { field: "code", body: { code: " " }, social: true },
    { field: "redirect_uri", body: { redirect_uri: "  " }, social: true }
  ])("a blank $field is 422 before any upstream call", ({ body, field, social }) =>
    Effect.gen(function*() {
      const dev = yield* signup("blank")
      const before = yield* callCount
      const reply = yield* (social ? connectSocial(dev, body) : connectChat(dev, body))
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail).toMatchObject([{ loc: ["body", field], msg: "must not be empty or only whitespace" }])
      expect(yield* callCount).toBe(before)
    }))

  // A 100,000-character phone_number_id answered 502 after the code was already exchanged upstream.
  it.effect.each([
    { field: "phone_number_id", body: { phone_number_id: "1".repeat(100_000) }, social: false, msg: "must be at most 64 characters" },
    { field: "phone_number_id", body: { phone_number_id: "106540352242922/../me" }, social: false, msg: "must be an upstream id: letters, digits, _ and - only" },
    { field: "waba_id", body: { waba_id: "1025 5" }, social: false, msg: "must be an upstream id: letters, digits, _ and - only" },
    { field: "code", body: { code: "c".repeat(2049) }, social: false, msg: "must be at most 2048 characters" },
    { field: "code", body: { code: "c".repeat(100_000) }, social: true, msg: "must be at most 2048 characters" },
    { field: "redirect_uri", body: { redirect_uri: `https://app.example/${"r".repeat(2100)}` }, social: true, msg: "must be at most 2083 characters" },
    { field: "social_id", body: { social_id: "17841400000000001?fields=access_token" }, social: true, msg: "must be an upstream id: letters, digits, _ and - only" }
  ])("a $field the upstream could never take is 422 at the field before any upstream call ($msg)", ({ body, field, msg, social }) =>
    Effect.gen(function*() {
      const dev = yield* signup("oversized")
      const before = yield* callCount
      const reply = yield* (social ? connectSocial(dev, body) : connectChat(dev, body))
      expect(reply.status, reply.text.slice(0, 300)).toBe(422)
      expect(reply.body.detail).toMatchObject([{ loc: ["body", field], msg }])
      expect(yield* callCount).toBe(before)
    }))

  it.effect("an expired token during connect is a coded 502 naming the step and Meta's code, with no token anywhere, and nothing stored", () =>
    Effect.gen(function*() {
      const dev = yield* signup("expired")
      const before = yield* callCount
      const logsBefore = capturedLogs.length
      const reply = yield* connectChat(dev, { code: SANDBOX_MAGIC_CODES.expired })
      expect(reply.status).toBe(502)
      expect(reply.body).toEqual({
        detail: { code: "upstream_error", message: expect.stringMatching(/^phone number registration failed at the upstream: .*code 190, subcode 463/) }
      })
      expect(reply.text).not.toContain(SANDBOX_EXPIRED_TOKEN)
      expect(reply.text).not.toContain(SANDBOX_MAGIC_CODES.expired)
      for (const line of capturedLogs.slice(logsBefore)) expect(line).not.toContain(SANDBOX_EXPIRED_TOKEN)
      const calls = yield* callsSince(before)
      expect(calls[0]).toBe("POST /oauth/access_token")
      expect(calls[1]).toMatch(/\/register$/)
      expect(calls.some((c) => c.endsWith("/subscribed_apps"))).toBe(false)
      expect((yield* request("GET", "/platform/dashboard/channels", { cookie: dev.cookie })).body).toEqual([])
      expect(yield* eventCount(dev.accountId)).toBe(0)
    }))

  it.effect("a code the upstream refuses is a 502 with Meta's code and no further call", () =>
    Effect.gen(function*() {
      const dev = yield* signup("invalid")
      const before = yield* callCount
      const reply = yield* connectChat(dev, { code: SANDBOX_MAGIC_CODES.invalid })
      expect(reply.status).toBe(502)
      expect(reply.body.detail.code).toBe("upstream_error")
      expect(reply.body.detail.message).toMatch(/^code exchange failed at the upstream: Invalid verification code format\. \(code 100, subcode 36007/)
      expect(yield* callsSince(before)).toEqual(["POST /oauth/access_token"])
    }))

  it.effect("a number already connected is 409 without touching the upstream", () =>
    Effect.gen(function*() {
      const a = yield* signup("dup-a")
      const b = yield* signup("dup-b")
      const first = yield* connectChat(a)
      expect(first.status).toBe(201)
      const before = yield* callCount
      const dup = yield* request("POST", "/platform/dashboard/channels/connect/chat", {
        cookie: b.cookie,
        body: { code: "c", phone_number_id: first.body.phone_number_id, waba_id: first.body.waba_id }
      })
      expect(dup.status).toBe(409)
      expect(yield* callCount).toBe(before)
    }))

  it.effect("a social connect exchanges the OAuth code, lists the Pages and connects the linked Instagram account", () =>
    Effect.gen(function*() {
      const dev = yield* signup("social")
      const other = yield* signup("social-2")
      const before = yield* callCount
      const reply = yield* connectSocial(dev)
      expect(reply.status, reply.text).toBe(201)
      expect(yield* callsSince(before)).toEqual(["POST /oauth/access_token", "GET /me/accounts"])
      expect(reply.body).toMatchObject({ type: "social", name: "sandbox.business", social_id: expect.stringMatching(/^178414\d{11}$/) })
      // Another login is another Instagram account: both connect.
      const second = yield* connectSocial(other)
      expect(second.status, second.text).toBe(201)
      expect(second.body.social_id).not.toBe(reply.body.social_id)
    }))

  it.effect("a social connect naming an account the login did not grant is 400 and stores nothing", () =>
    Effect.gen(function*() {
      const dev = yield* signup("social-pick")
      yield* setPlan(dev, "lite")
      const reply = yield* connectSocial(dev, { social_id: "17841499999999999" })
      expect(reply.status).toBe(400)
      expect(reply.body.detail).toMatchObject({ code: "bad_request", message: expect.stringContaining("17841499999999999") })
      expect((yield* request("GET", "/platform/dashboard/channels", { cookie: dev.cookie })).body).toEqual([])
    }))

  it.effect("an expired token during a social connect is a coded 502 without the token", () =>
    Effect.gen(function*() {
      const dev = yield* signup("social-expired")
      const reply = yield* connectSocial(dev, { code: SANDBOX_MAGIC_CODES.expired })
      expect(reply.status).toBe(502)
      expect(reply.body.detail.code).toBe("upstream_error")
      expect(reply.body.detail.message).toMatch(/^Instagram account listing failed at the upstream: .*code 190/)
      expect(reply.text).not.toContain(SANDBOX_EXPIRED_TOKEN)
    }))
})
