import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { PLAN_LIMITS } from "@platform/shared"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { Secrets } from "../../src/crypto/secrets.js"
import {
  AuthTestServer,
  baseUrl,
  connectChat,
  cookieOf,
  createKey,
  type Dev,
  request,
  signup,
  uniqueEmail
} from "../auth/support.js"

const D = "/platform/dashboard"

const setPlan = (dev: Dev, plan: string) => request("POST", `${D}/billing/plan`, { cookie: dev.cookie, body: { plan } })

describe("dashboard", () => {
  layer(AuthTestServer(), { timeout: 60_000 })("sessions", (it) => {
    it.effect("signup creates user, account and owner role and sets an HttpOnly, SameSite=Lax, 7-day cookie", () =>
      Effect.gen(function*() {
        const email = uniqueEmail()
        const reply = yield* request("POST", `${D}/signup`, { body: { email, password: "correct horse", name: "Ada" } })
        expect(reply.status).toBe(201)
        expect(reply.body).toMatchObject({
          user: { email, name: "Ada" },
          account: { name: "Ada", plan: "free" },
          role: "owner",
          plan: "free",
          usage: { inbound_messages: 0, template_messages: 0, broadcasts: 0, channels: 0 }
        })
        const cookie = reply.setCookies.find((c) => c.startsWith("access_token_dev="))!
        expect(cookie).toMatch(/HttpOnly/)
        expect(cookie).toMatch(/SameSite=Lax/)
        expect(cookie).toMatch(/Max-Age=604800/)
        expect(cookie).toMatch(/Path=\//)
        expect(cookie).not.toMatch(/Secure/)
        const me = yield* request("GET", `${D}/me`, { cookie: cookieOf(reply) })
        expect(me.status).toBe(200)
        expect(me.body.user.email).toBe(email)
      }))

    it.effect("a 422 names a bad password or PIN without echoing it, in input or in msg", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const cases: ReadonlyArray<[string, Record<string, unknown>, string, string]> = [
          [`${D}/signup`, { email: uniqueEmail(), password: "hunter2", name: "Ada" }, "password", "hunter2"],
          [`${D}/signup`, { email: uniqueEmail(), password: 73_519_264, name: "Ada" }, "password", "73519264"],
          [`${D}/login`, { email: dev.email, password: ["s3cr3t-in-a-list"] }, "password", "s3cr3t-in-a-list"],
          [`${D}/team`, { email: uniqueEmail(), role: "admin", name: "X", password: "tiny12" }, "password", "tiny12"],
          [`${D}/channels/connect/chat`, { code: "c", phone_number_id: "1", waba_id: "2", pin: "98765" }, "pin", "98765"]
        ]
        for (const [path, body, field, secret] of cases) {
          const reply = yield* request("POST", path, { cookie: dev.cookie, body })
          expect(reply.status, path).toBe(422)
          expect(reply.body.detail).toMatchObject([{ loc: ["body", field], input: null }])
          expect(reply.text).not.toContain(secret)
        }
        // A field missing beside a secret: the object that lacks it is echoed without the secret.
        const missing = yield* request("POST", `${D}/signup`, { body: { email: uniqueEmail(), password: "a long secret password" } })
        expect(missing.body.detail).toMatchObject([{ loc: ["body", "name"], input: { password: "[redacted]" } }])
        expect(missing.text).not.toContain("a long secret password")
      }))

    it.effect("signup with an email already used (any case) is 409 email_taken", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const reply = yield* request("POST", `${D}/signup`, {
          body: { email: dev.email.toUpperCase(), password: "another password", name: "Twin" }
        })
        expect(reply.status).toBe(409)
        expect(reply.body.detail.code).toBe("email_taken")
      }))

    it.effect("login answers the same 401 for an unknown email and a wrong password, and 200 with a cookie when right", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const wrong = yield* request("POST", `${D}/login`, { body: { email: dev.email, password: "not it at all" } })
        const unknown = yield* request("POST", `${D}/login`, { body: { email: uniqueEmail("ghost"), password: "not it at all" } })
        expect(wrong.status).toBe(401)
        expect(unknown.status).toBe(401)
        expect(wrong.text).toBe(unknown.text)
        expect(wrong.setCookies).toEqual([])
        const right = yield* request("POST", `${D}/login`, { body: { email: dev.email.toUpperCase(), password: dev.password } })
        expect(right.status).toBe(200)
        expect(right.body.account.id).toBe(dev.accountId)
        expect((yield* request("GET", `${D}/me`, { cookie: cookieOf(right) })).status).toBe(200)
      }))

    it.effect("login is rate limited per client address and email: the 11th attempt in a minute is 429 with Retry-After", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const attempts = []
        for (let i = 0; i < 11; i++) {
          attempts.push((yield* request("POST", `${D}/login`, { body: { email: dev.email, password: "wrong password" } })).status)
        }
        expect(attempts).toEqual([...Array(10).fill(401), 429])
        const limited = yield* request("POST", `${D}/login`, { body: { email: dev.email, password: dev.password } })
        expect(limited.status).toBe(429)
        expect(limited.text).toBe(`{"detail":"rate limit exceeded"}`)
        // When the first of the 10 counted attempts leaves the minute's window: within it, never 0.
        const retryAfter = Number(limited.headers.get("retry-after"))
        expect(retryAfter).toBeGreaterThanOrEqual(1)
        expect(retryAfter).toBeLessThanOrEqual(60)
        const other = yield* signup("other")
        const fine = yield* request("POST", `${D}/login`, { body: { email: other.email, password: other.password } })
        expect(fine.status).toBe(200)
      }))

    it.effect("logout revokes the session server-side and clears the cookie", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const out = yield* request("POST", `${D}/logout`, { cookie: dev.cookie })
        expect(out.status).toBe(204)
        expect(out.setCookies.find((c) => c.startsWith("access_token_dev="))).toMatch(/Max-Age=0/)
        expect((yield* request("GET", `${D}/me`, { cookie: dev.cookie })).status).toBe(401)
        expect((yield* request("POST", `${D}/logout`)).status).toBe(204)
      }))

    it.effect.each([
      { case: "a tampered signature", token: (t: string) => t.slice(0, -2) + (t.endsWith("A") ? "BB" : "AA") },
      { case: "a forged session id", token: (t: string) => `${randomBytes(32).toString("base64url")}.${t.split(".")[1]}.${t.split(".")[2]}` },
      { case: "garbage", token: () => "not-a-token" },
      { case: "an empty value", token: () => "" }
    ])("a session cookie with $case is 401", ({ token }) =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const value = dev.cookie.split("=")[1]!
        const reply = yield* request("GET", `${D}/me`, { cookie: `access_token_dev=${token(value)}` })
        expect(reply.status).toBe(401)
      }))

    it.effect("a correctly signed token past its expiry is 401", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const secrets = yield* Secrets
        const sid = dev.cookie.split("=")[1]!.split(".")[0]!
        const payload = `${sid}.${Date.now() - 1000}`
        const reply = yield* request("GET", `${D}/me`, { cookie: `access_token_dev=${payload}.${secrets.sign(payload)}` })
        expect(reply.status).toBe(401)
      }))
  })

  layer(AuthTestServer(), { timeout: 60_000 })("CSRF defence", (it) => {
    it.effect.each([
      { case: "Origin of another site", headers: { origin: "https://evil.example" }, ok: false },
      { case: "Origin null", headers: { origin: "null" }, ok: false },
      { case: "Sec-Fetch-Site cross-site", headers: { "sec-fetch-site": "cross-site" }, ok: false },
      { case: "Sec-Fetch-Site same-site", headers: { "sec-fetch-site": "same-site" }, ok: false },
      { case: "Sec-Fetch-Site same-origin", headers: { "sec-fetch-site": "same-origin" }, ok: true },
      { case: "our own Origin", headers: { origin: "SELF" }, ok: true },
      { case: "neither header (a non-browser client)", headers: {}, ok: true }
    ])("a cookie mutation with $case is allowed: $ok", ({ headers, ok }) =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const self = yield* baseUrl
        const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === "SELF" ? self : v]))
        const mutations = [
          request("PATCH", `${D}/account`, { cookie: dev.cookie, headers: h, body: { name: "renamed" } }),
          request("PATCH", "/platform/v1/channels/999999/inbound", { cookie: dev.cookie, headers: h, body: { enabled: false } }),
          request("POST", `${D}/login`, { headers: h, body: { email: dev.email, password: dev.password } })
        ]
        for (const reply of yield* Effect.all(mutations)) {
          if (ok) expect(reply.status, reply.text).not.toBe(403)
          else expect(reply.body).toEqual({ detail: { code: "csrf_rejected", message: expect.any(String) } })
        }
        const read = yield* request("GET", `${D}/me`, { cookie: dev.cookie, headers: h })
        expect(read.status).toBe(200)
      }))
  })

  layer(AuthTestServer(), { timeout: 60_000 })("account, billing and team", (it) => {
    it.effect("GET and PATCH account; billing shows plan, usage and the plan's limits", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const patched = yield* request("PATCH", `${D}/account`, { cookie: dev.cookie, body: { name: "Acme" } })
        expect(patched.body).toMatchObject({ id: dev.accountId, name: "Acme", plan: "free" })
        expect((yield* request("GET", `${D}/account`, { cookie: dev.cookie })).body.name).toBe("Acme")
        // 200 characters is 200 characters, emoji too (not 400 UTF-16 units); 201 is 422.
        const emoji = yield* request("PATCH", `${D}/account`, { cookie: dev.cookie, body: { name: "🏢".repeat(200) } })
        expect(emoji.status).toBe(200)
        const long = yield* request("PATCH", `${D}/account`, { cookie: dev.cookie, body: { name: "a".repeat(201) } })
        expect(long.status).toBe(422)
        expect(long.body.detail[0].loc).toEqual(["body", "name"])
        yield* request("PATCH", `${D}/account`, { cookie: dev.cookie, body: { name: "Acme" } })
        const billing = yield* request("GET", `${D}/billing`, { cookie: dev.cookie })
        expect(billing.body).toEqual({
          plan: "free",
          usage: { period: expect.stringMatching(/^\d{4}-\d{2}-01$/), inbound_messages: 0, template_messages: 0, broadcasts: 0, channels: 0 },
          limits: PLAN_LIMITS.free
        })
      }))

    it.effect("a name of only whitespace is 422 at the field on signup, account, team and API keys; nothing is stored", () =>
      Effect.gen(function*() {
        const dev = yield* signup("named")
        const key = yield* request("POST", `${D}/api-keys`, { cookie: dev.cookie, body: { name: "ci" } })
        const email = uniqueEmail("blank")
        const cases: ReadonlyArray<[string, string, Record<string, unknown>, string]> = [
          ["POST", `${D}/signup`, { email, password: "correct horse", name: "   " }, "name"],
          ["POST", `${D}/signup`, { email, password: "correct horse", name: "Ada", account_name: "\t" }, "account_name"],
          ["PATCH", `${D}/account`, { name: " \u3000 " }, "name"],
          ["POST", `${D}/team`, { email, role: "developer", name: "\n", password: "member password" }, "name"],
          ["POST", `${D}/api-keys`, { name: "  " }, "name"],
          ["PATCH", `${D}/api-keys/${key.body.id}`, { name: "" }, "name"]
        ]
        for (const [method, path, body, field] of cases) {
          const reply = yield* request(method, path, { cookie: dev.cookie, body })
          expect(reply.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422)
          expect(reply.body.detail).toMatchObject([{ loc: ["body", field], msg: "must not be empty or only whitespace" }])
        }
        expect((yield* request("GET", `${D}/account`, { cookie: dev.cookie })).body.name).toBe("named")
        expect((yield* request("GET", `${D}/team`, { cookie: dev.cookie })).body).toHaveLength(1)
        const keys = (yield* request("GET", `${D}/api-keys`, { cookie: dev.cookie })).body
        expect(keys.map((k: { name: string }) => k.name)).toEqual(["ci"])
        expect((yield* request("POST", `${D}/login`, { body: { email, password: "correct horse" } })).status).toBe(401)
      }))

    it.effect.each([
      { plan: "free", channels: 1 },
      { plan: "lite", channels: 3 }
    ])("on the $plan plan the channel cap is $channels: one more connect is 403 plan_forbidden", ({ channels, plan }) =>
      Effect.gen(function*() {
        const dev = yield* signup()
        expect((yield* setPlan(dev, plan)).body.limits.channels).toBe(channels)
        for (let i = 0; i < channels; i++) expect((yield* connectChat(dev)).status).toBe(201)
        const over = yield* connectChat(dev)
        expect(over.status).toBe(403)
        expect(over.body.detail.code).toBe("plan_forbidden")
        const billing = yield* request("GET", `${D}/billing`, { cookie: dev.cookie })
        expect(billing.body.usage.channels).toBe(channels)
      }))

    it.effect("a downgrade below the connected channels is 409; after a disconnect it succeeds", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        yield* setPlan(dev, "lite")
        const first = yield* connectChat(dev)
        yield* connectChat(dev)
        const refused = yield* setPlan(dev, "free")
        expect(refused.status).toBe(409)
        expect(refused.body.detail.code).toBe("conflict")
        yield* request("DELETE", `${D}/channels/${first.body.channel_id}`, { cookie: dev.cookie })
        expect((yield* setPlan(dev, "free")).status).toBe(200)
      }))

    it.effect("team: the owner adds a developer who can sign in; a developer may not manage the team", () =>
      Effect.gen(function*() {
        const owner = yield* signup("owner")
        const email = uniqueEmail("member")
        const added = yield* request("POST", `${D}/team`, {
          cookie: owner.cookie,
          body: { email, role: "developer", name: "Member", password: "member password" }
        })
        expect(added.status).toBe(201)
        expect(added.body).toMatchObject({ email, role: "developer", name: "Member" })
        const login = yield* request("POST", `${D}/login`, { body: { email, password: "member password" } })
        expect(login.body).toMatchObject({ role: "developer", account: { id: owner.accountId } })
        const member = cookieOf(login)
        const team = yield* request("GET", `${D}/team`, { cookie: member })
        expect(team.body.map((m: { role: string }) => m.role)).toEqual(["owner", "developer"])
        for (const reply of [
          yield* request("POST", `${D}/team`, { cookie: member, body: { email: uniqueEmail(), role: "admin", name: "X", password: "xxxxxxxx" } }),
          yield* request("DELETE", `${D}/team/${owner.userId}`, { cookie: member }),
          yield* setPlan({ ...owner, cookie: member }, "pro")
        ]) {
          expect(reply.status).toBe(403)
          expect(reply.body.detail.code).toBe("insufficient_role")
        }
        const again = yield* request("POST", `${D}/team`, { cookie: owner.cookie, body: { email, role: "admin" } })
        expect(again.status).toBe(409)
        const missing = yield* request("POST", `${D}/team`, { cookie: owner.cookie, body: { email: uniqueEmail(), role: "admin" } })
        expect(missing.status).toBe(422)
      }))

    it.effect("a user added to another account signs in to it with account_id; me lists both; a foreign account is the same 401", () =>
      Effect.gen(function*() {
        const owner = yield* signup("owner")
        const member = yield* signup("member")
        const added = yield* request("POST", `${D}/team`, { cookie: owner.cookie, body: { email: member.email, role: "developer" } })
        expect(added.status).toBe(201)
        const memberships = [
          { id: member.accountId, name: "member", role: "owner" },
          { id: owner.accountId, name: "owner", role: "developer" }
        ]
        const plain = yield* request("POST", `${D}/login`, { body: { email: member.email, password: member.password } })
        expect(plain.body).toMatchObject({ account: { id: member.accountId }, role: "owner", accounts: memberships })
        const joined = yield* request("POST", `${D}/login`, {
          body: { email: member.email, password: member.password, account_id: owner.accountId }
        })
        expect(joined.status).toBe(200)
        expect(joined.body).toMatchObject({ account: { id: owner.accountId }, role: "developer", accounts: memberships })
        const me = yield* request("GET", `${D}/me`, { cookie: cookieOf(joined) })
        expect(me.body).toMatchObject({ account: { id: owner.accountId }, role: "developer" })
        const team = yield* request("GET", `${D}/team`, { cookie: cookieOf(joined) })
        expect(team.body.map((m: { user_id: number }) => m.user_id)).toEqual([owner.userId, member.userId])

        const stranger = yield* signup("stranger")
        const wrongPassword = yield* request("POST", `${D}/login`, { body: { email: member.email, password: "wrong password" } })
        for (const account_id of [stranger.accountId, 999999999]) {
          const refused = yield* request("POST", `${D}/login`, { body: { email: member.email, password: member.password, account_id } })
          expect(refused.status).toBe(401)
          expect(refused.text).toBe(wrongPassword.text)
          expect(refused.setCookies).toEqual([])
        }
      }))

    it.effect("team: name or password for an email that already has a user is 422 at each field; nothing changes", () =>
      Effect.gen(function*() {
        const owner = yield* signup("owner")
        const member = yield* signup("member")
        const both = yield* request("POST", `${D}/team`, {
          cookie: owner.cookie,
          body: { email: member.email.toUpperCase(), role: "admin", name: "Renamed", password: "taken over password" }
        })
        expect(both.status).toBe(422)
        expect(both.body.detail.map((d: { loc: Array<string> }) => d.loc)).toEqual([["body", "name"], ["body", "password"]])
        expect(both.body.detail[0]).toMatchObject({ type: "extra_forbidden", input: "Renamed", msg: expect.stringMatching(/already exists/) })
        expect(both.text).not.toContain("taken over password")
        const onlyPassword = yield* request("POST", `${D}/team`, {
          cookie: owner.cookie,
          body: { email: member.email, role: "developer", password: "taken over password" }
        })
        expect(onlyPassword.status).toBe(422)
        expect(onlyPassword.body.detail.map((d: { loc: Array<string> }) => d.loc)).toEqual([["body", "password"]])
        expect((yield* request("GET", `${D}/team`, { cookie: owner.cookie })).body.map((m: { user_id: number }) => m.user_id))
          .toEqual([owner.userId])
        expect((yield* request("POST", `${D}/login`, { body: { email: member.email, password: "taken over password" } })).status).toBe(401)
        const me = yield* request("POST", `${D}/login`, { body: { email: member.email, password: member.password } })
        expect(me.body.user.name).toBe("member")
      }))

    it.effect("removing a member revokes their session; the last owner cannot be removed", () =>
      Effect.gen(function*() {
        const owner = yield* signup("owner")
        const email = uniqueEmail("member")
        const added = yield* request("POST", `${D}/team`, {
          cookie: owner.cookie,
          body: { email, role: "admin", name: "Admin", password: "admin password" }
        })
        const member = cookieOf(yield* request("POST", `${D}/login`, { body: { email, password: "admin password" } }))
        const byAdmin = yield* request("DELETE", `${D}/team/${owner.userId}`, { cookie: member })
        expect(byAdmin.status).toBe(403)
        const self = yield* request("DELETE", `${D}/team/${owner.userId}`, { cookie: owner.cookie })
        expect(self.status).toBe(409)
        expect((yield* request("DELETE", `${D}/team/${added.body.user_id}`, { cookie: owner.cookie })).status).toBe(204)
        expect((yield* request("GET", `${D}/me`, { cookie: member })).status).toBe(401)
        expect((yield* request("DELETE", `${D}/team/${added.body.user_id}`, { cookie: owner.cookie })).status).toBe(404)
      }))
  })

  layer(AuthTestServer(), { timeout: 60_000 })("channels", (it) => {
    const eventsOf = (accountId: number) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ event_type: string; platform_channel_id: number; envelope: any }>`
          select event_type, platform_channel_id, envelope from events where developer_account_id = ${accountId} order by id`)

    it.effect("connecting a chat channel stores an encrypted token and writes channel.connected with the last 4 characters", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const reply = yield* connectChat(dev, "106540352242922")
        expect(reply.status).toBe(201)
        expect(reply.body).toMatchObject({
          type: "chat",
          status: "active",
          phone_number_id: "106540352242922",
          meta_identifier_suffix: "2922",
          has_webhook_secret: false
        })
        const [event] = yield* eventsOf(dev.accountId)
        expect(event!.event_type).toBe("channel.connected")
        expect(event!.envelope).toEqual({
          id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
          event: "channel.connected",
          developer_account_id: dev.accountId,
          platform_channel_id: reply.body.channel_id,
          occurred_at: expect.any(String),
          api_version: "platform-v1",
          data: { channel_id: reply.body.channel_id, channel_type: "chat", meta_identifier_suffix: "2922" }
        })
        expect(JSON.stringify(event!.envelope)).not.toContain("106540352242922")
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ token: Uint8Array }>`select access_token_encrypted as token from platform_channels where id = ${reply.body.channel_id}`
        expect(Buffer.from(row!.token).toString("utf8")).not.toContain("sandbox_token_")
        const secrets = yield* Secrets
        expect(yield* Effect.map(secrets.decrypt(row!.token), (t) => t.toString())).toBe("<redacted>")
      }))

    it.effect("a social connect exchanges the OAuth code; v1 lists channels newest first without token material", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        yield* setPlan(dev, "lite")
        const { key } = yield* createKey(dev)
        expect((yield* request("GET", "/platform/v1/channels", { key })).body).toEqual([])
        const chat = yield* connectChat(dev)
        const social = yield* request("POST", `${D}/channels/connect/social`, {
          cookie: dev.cookie,
          body: { code: "oauth-code", redirect_uri: "https://app.example/callback" }
        })
        expect(social.status).toBe(201)
        expect(social.body.meta_identifier_suffix).toBe(social.body.social_id.slice(-4))
        const list = yield* request("GET", "/platform/v1/channels", { key })
        expect(list.body.map((c: { channel_id: number }) => c.channel_id)).toEqual([social.body.channel_id, chat.body.channel_id])
        expect(list.body[0]).not.toHaveProperty("social_id")
        expect(list.text).not.toMatch(/token|secret|webhook/)
        const onlyChat = yield* request("GET", "/platform/v1/channels?type=chat", { key })
        expect(onlyChat.body.map((c: { type: string }) => c.type)).toEqual(["chat"])
        const events = yield* eventsOf(dev.accountId)
        expect(events.map((e) => e.envelope.data.channel_type)).toEqual(["chat", "social"])
      }))

    it.effect("the v1 list and each ?type= filter reflect connect, kill-switch and disconnect at once (cached bodies are invalidated)", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        yield* setPlan(dev, "lite")
        const { key } = yield* createKey(dev)
        const ids = (path: string) =>
          Effect.map(request("GET", path, { key }), (reply) => {
            expect(reply.status).toBe(200)
            expect(reply.headers.get("content-type")).toBe("application/json")
            expect(reply.headers.get("x-ratelimit-limit")).not.toBeNull()
            expect(reply.headers.get("x-request-id")).toMatch(/^req_/)
            return reply.body.map((c: { channel_id: number; status: string; inbound_enabled: boolean }) =>
              [c.channel_id, c.status, c.inbound_enabled]
            )
          })
        const all = "/platform/v1/channels"
        const chats = "/platform/v1/channels?type=chat"
        const socials = "/platform/v1/channels?type=social"
        expect([yield* ids(all), yield* ids(chats), yield* ids(socials)]).toEqual([[], [], []])

        const chat = (yield* connectChat(dev)).body.channel_id
        expect([yield* ids(all), yield* ids(chats), yield* ids(socials)]).toEqual([
          [[chat, "active", true]],
          [[chat, "active", true]],
          []
        ])

        const off = yield* request("PATCH", `/platform/v1/channels/${chat}/inbound`, { key, body: { enabled: false } })
        expect(off.status).toBe(200)
        expect([yield* ids(all), yield* ids(chats)]).toEqual([[[chat, "active", false]], [[chat, "active", false]]])

        expect((yield* request("DELETE", `${D}/channels/${chat}`, { cookie: dev.cookie })).status).toBe(204)
        expect([yield* ids(all), yield* ids(chats)]).toEqual([[[chat, "disconnected", false]], [[chat, "disconnected", false]]])

        const again = (yield* connectChat(dev)).body.channel_id
        expect(yield* ids(all)).toEqual([[again, "active", true], [chat, "disconnected", false]])
        expect(yield* ids(socials)).toEqual([])
      }))

    it.effect("an upstream identifier already connected is 409 and writes no event (same transaction)", () =>
      Effect.gen(function*() {
        const a = yield* signup()
        const b = yield* signup()
        expect((yield* connectChat(a, "555000111")).status).toBe(201)
        const dup = yield* connectChat(b, "555000111")
        expect(dup.status).toBe(409)
        expect(yield* eventsOf(b.accountId)).toEqual([])
      }))

    it.effect("disconnect forgets the token, writes channel.disconnected, and a second disconnect is 404", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const chat = yield* connectChat(dev, "777000123456")
        const id = chat.body.channel_id
        expect((yield* request("DELETE", `${D}/channels/${id}`, { cookie: dev.cookie })).status).toBe(204)
        expect((yield* request("DELETE", `${D}/channels/${id}`, { cookie: dev.cookie })).status).toBe(404)
        const events = yield* eventsOf(dev.accountId)
        expect(events.map((e) => [e.event_type, e.envelope.data])).toEqual([
          ["channel.connected", { channel_id: id, channel_type: "chat", meta_identifier_suffix: "3456" }],
          ["channel.disconnected", { channel_id: id, channel_type: "chat", meta_identifier_suffix: "3456" }]
        ])
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ token: unknown; status: string }>`
          select access_token_encrypted as token, status from platform_channels where id = ${id}`
        expect(row).toEqual({ token: null, status: "disconnected" })
        const list = yield* request("GET", `${D}/channels`, { cookie: dev.cookie })
        expect(list.body[0]).toMatchObject({ channel_id: id, status: "disconnected" })
        expect((yield* connectChat(dev, "777000123456")).status).toBe(201)
      }))

    it.effect("raw forward: the first URL creates a secret shown once, regenerate replaces it, null turns it off (then regenerate is 422)", () =>
      Effect.gen(function*() {
        const dev = yield* signup()
        const id = (yield* connectChat(dev)).body.channel_id
        const path = `${D}/channels/${id}/webhook`
        const first = yield* request("PATCH", path, { cookie: dev.cookie, body: { webhook_url: "https://127.0.0.1:9443/hook" } })
        expect(first.status).toBe(200)
        expect(first.body).toEqual({
          channel_id: id,
          webhook_url: "https://127.0.0.1:9443/hook",
          has_webhook_secret: true,
          webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/)
        })
        const same = yield* request("PATCH", path, { cookie: dev.cookie, body: { webhook_url: "https://127.0.0.1:9443/other" } })
        expect(same.body).not.toHaveProperty("webhook_secret")
        const rotated = yield* request("PATCH", path, { cookie: dev.cookie, body: { regenerate_secret: true } })
        expect(rotated.body.webhook_secret).toMatch(/^whsec_/)
        expect(rotated.body.webhook_secret).not.toBe(first.body.webhook_secret)
        const listed = yield* request("GET", `${D}/channels`, { cookie: dev.cookie })
        expect(listed.text).not.toContain(rotated.body.webhook_secret)
        expect(listed.body[0]).toMatchObject({ webhook_url: "https://127.0.0.1:9443/other", has_webhook_secret: true })
        const contradictory = yield* request("PATCH", path, { cookie: dev.cookie, body: { webhook_url: null, regenerate_secret: true } })
        expect(contradictory.status).toBe(422)
        expect(contradictory.body.detail).toEqual([expect.objectContaining({ loc: ["body", "regenerate_secret"] })])
        const off = yield* request("PATCH", path, { cookie: dev.cookie, body: { webhook_url: null } })
        expect(off.body).toEqual({ channel_id: id, webhook_url: null, has_webhook_secret: false })
        // Nothing to regenerate without a URL: 422, not a 200 that silently hands out no secret.
        const nothing = yield* request("PATCH", path, { cookie: dev.cookie, body: { regenerate_secret: true } })
        expect(nothing.status).toBe(422)
        expect(nothing.body.detail).toEqual([expect.objectContaining({ loc: ["body", "regenerate_secret"] })])
        const still = yield* request("GET", `${D}/channels`, { cookie: dev.cookie })
        expect(still.body[0]).toMatchObject({ webhook_url: null, has_webhook_secret: false })
        expect((yield* request("PATCH", `${D}/channels/999999/webhook`, { cookie: dev.cookie, body: { webhook_url: null } })).status).toBe(404)
      }))
  })

  layer(
    AuthTestServer({
      NODE_ENV: "production",
      UNSAFE_ALLOW_LOCAL_TARGETS: "false",
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      SESSION_SECRET: randomBytes(32).toString("hex")
    }),
    { timeout: 60_000 }
  )("in production", (it) => {
    it.effect("the session cookie is Secure", () =>
      Effect.gen(function*() {
        const reply = yield* request("POST", `${D}/signup`, { body: { email: uniqueEmail(), password: "correct horse", name: "P" } })
        expect(reply.setCookies.find((c) => c.startsWith("access_token_dev="))).toMatch(/; Secure/)
      }))

    it.effect.each([
      { url: "http://93.184.215.14/hook", why: "not HTTPS" },
      { url: "https://127.0.0.1/hook", why: "loopback" },
      { url: "https://10.1.2.3/hook", why: "private range" },
      { url: "https://169.254.169.254/latest", why: "metadata address" },
      { url: "https://[::ffff:192.168.0.1]/hook", why: "IPv4-mapped private" },
      { url: "not a url", why: "unparseable" },
      { url: "  https://93.184.215.14/hook", why: "led by spaces (stored without them)" },
      { url: "https://93.184.215.14/ho\tok", why: "holding a tab (dropped by the URL parser)" }
    ])("a raw-forward URL that is $why is 422 at body.webhook_url", ({ url }) =>
      Effect.gen(function*() {
        const reply = yield* request("POST", `${D}/signup`, { body: { email: uniqueEmail(), password: "correct horse", name: "P" } })
        const dev = { cookie: cookieOf(reply) } as Dev
        const id = (yield* connectChat(dev)).body.channel_id
        const refused = yield* request("PATCH", `${D}/channels/${id}/webhook`, { cookie: dev.cookie, body: { webhook_url: url } })
        expect(refused.status).toBe(422)
        expect(refused.body.detail[0]).toMatchObject({ loc: ["body", "webhook_url"], input: url })
        const accepted = yield* request("PATCH", `${D}/channels/${id}/webhook`, {
          cookie: dev.cookie,
          body: { webhook_url: "https://93.184.215.14/hook" }
        })
        expect(accepted.status).toBe(200)
      }))
  })
})
