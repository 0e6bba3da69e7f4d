import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { http, HttpResponse } from "msw"
import { errorHandlers, GRAPH, makeRecorder, META_ERROR_FIXTURES, META_RESPONSES, successHandlers, VERSION } from "../fixtures/meta/index.js"
import { MessagingTestServer, request } from "../messages/support.js"
import { graphDeveloper, graphMock, GRAPH_LINE, once } from "../support/graph-mock.js"
import { captureLogs } from "../support/log-capture.js"

// Only Graph traffic is mocked; the test's own requests to the loopback server pass through.
const msw = graphMock("bypass")

const TOKEN = "EAAGmswChannelOpsToken0123456789abcdef"
const PNID = GRAPH_LINE.phone_number_id
const PIN = "864209"
const logs = captureLogs()

const ctx = once(graphDeveloper("chanops-msw", { token: TOKEN }))

const at = (channelId: number, edge: string) => `/platform/v1/channels/${channelId}/${edge}`

/** Each operation that calls the upstream, with a valid body and the one Graph call it makes first. */
const CALLS: ReadonlyArray<{ readonly method: string; readonly edge: string; readonly body?: unknown; readonly upstream: string }> = [
  { method: "GET", edge: "health", upstream: `GET ${GRAPH}/${VERSION}/${PNID}?fields=health_status` },
  { method: "GET", edge: "profile", upstream: `GET ${GRAPH}/${VERSION}/${PNID}/whatsapp_business_profile?fields=` },
  { method: "POST", edge: "profile", body: { about: "Open" }, upstream: `POST ${GRAPH}/${VERSION}/${PNID}/whatsapp_business_profile` },
  { method: "GET", edge: "display-name", upstream: `GET ${GRAPH}/${VERSION}/${PNID}?fields=` },
  { method: "POST", edge: "block-users", body: { users: ["+16505551234"] }, upstream: `POST ${GRAPH}/${VERSION}/${PNID}/block_users` },
  { method: "DELETE", edge: "block-users", body: { users: ["+16505551234"] }, upstream: `DELETE ${GRAPH}/${VERSION}/${PNID}/block_users` },
  { method: "POST", edge: "two-factor", body: { pin: PIN }, upstream: `POST ${GRAPH}/${VERSION}/${PNID}` }
]

layer(
  MessagingTestServer({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION }).pipe(Layer.provide(logs.layer)),
  { timeout: 120_000, excludeTestServices: true }
)("channel operations against Meta's Graph API (msw)", (it) => {
  it.effect("each operation makes its Graph call with the channel's token and answers Meta's result in the platform's shape", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const rec = makeRecorder()
      msw.use(...successHandlers(rec))
      const call = (method: string, edge: string, body?: unknown) => request(method, at(s.chat, edge), { key: s.key, body })

      const health = yield* call("GET", "health")
      expect(health.status, health.text).toBe(200)
      expect(health.body).toEqual({
        channel_id: s.chat,
        can_send_message: "LIMITED",
        entities: [
          { entity_type: "PHONE_NUMBER", can_send_message: "AVAILABLE", errors: [], additional_info: [] },
          {
            entity_type: "WABA",
            can_send_message: "LIMITED",
            errors: [],
            additional_info: ["Your WhatsApp Business Account has reached its messaging limit."]
          },
          { entity_type: "BUSINESS", can_send_message: "AVAILABLE", errors: [], additional_info: [] },
          { entity_type: "APP", can_send_message: "AVAILABLE", errors: [], additional_info: [] }
        ]
      })

      const { messaging_product: _, ...profile } = META_RESPONSES.businessProfile.data[0]
      const read = yield* call("GET", "profile")
      expect(read.status, read.text).toBe(200)
      expect(read.body).toEqual({ channel_id: s.chat, ...profile })

      const updated = yield* call("POST", "profile", { about: "Open 9 to 5", websites: ["https://shop.example"] })
      expect(updated.status, updated.text).toBe(200)
      expect(updated.body).toEqual({ channel_id: s.chat, ...profile })

      const name = yield* call("GET", "display-name")
      expect(name.status, name.text).toBe(200)
      expect(name.body).toEqual({
        channel_id: s.chat,
        verified_name: "Jasper's Market",
        display_phone_number: "+1 555-016-1234",
        name_status: "APPROVED",
        new_name_status: null
      })

      const blocked = yield* call("POST", "block-users", { users: ["+16505551234"] })
      expect(blocked.status, blocked.text).toBe(200)
      expect(blocked.body).toEqual({ channel_id: s.chat, succeeded: [{ user: "+16505551234", wa_id: "16505551234" }], failed: [] })
      const unblocked = yield* call("DELETE", "block-users", { users: ["+16505551234"] })
      expect(unblocked.status, unblocked.text).toBe(200)
      expect(unblocked.body).toEqual(blocked.body)

      const pin = yield* call("POST", "two-factor", { pin: PIN })
      expect(pin.status, pin.text).toBe(200)
      expect(pin.body).toEqual({ channel_id: s.chat, two_factor_enabled: true })

      expect(rec.calls.map((c) => `${c.method} ${c.url.split("?")[0]}`)).toEqual([
        `GET ${GRAPH}/${VERSION}/${PNID}`,
        `GET ${GRAPH}/${VERSION}/${PNID}/whatsapp_business_profile`,
        `POST ${GRAPH}/${VERSION}/${PNID}/whatsapp_business_profile`,
        `GET ${GRAPH}/${VERSION}/${PNID}/whatsapp_business_profile`,
        `GET ${GRAPH}/${VERSION}/${PNID}`,
        `POST ${GRAPH}/${VERSION}/${PNID}/block_users`,
        `DELETE ${GRAPH}/${VERSION}/${PNID}/block_users`,
        `POST ${GRAPH}/${VERSION}/${PNID}`
      ])
      for (const c of rec.calls) expect(c.authorization).toBe(`Bearer ${TOKEN}`)
      const bodies = rec.calls.map((c) => (c.body ? JSON.parse(c.body) : null))
      expect(bodies[2]).toEqual({ messaging_product: "whatsapp", about: "Open 9 to 5", websites: ["https://shop.example"] })
      expect(bodies[5]).toEqual({ messaging_product: "whatsapp", block_users: [{ user: "+16505551234" }] })
      expect(bodies[6]).toEqual(bodies[5])
      expect(bodies[7]).toEqual({ pin: PIN })
    }))

  it.effect("Meta's mixed 400 for block-users (139100) is a 200 with each refused user and Meta's reasons", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      msw.use(http.post(`${GRAPH}/${VERSION}/:pnid/block_users`, () =>
        HttpResponse.json({
          messaging_product: "whatsapp",
          block_users: {
            added_users: [{ input: "+16505551234", wa_id: "16505551234" }],
            failed_users: [{
              input: "+16505550000",
              errors: [{ message: "Re-engagement required", code: "131047", error_data: { details: "User has not messaged in the last 24 hours" } }]
            }]
          },
          error: {
            message: "(#139100) Failed to block/unblock users",
            type: "OAuthException",
            code: 139100,
            error_data: { details: "Failed to block some users, see the block_users response list for details" },
            fbtrace_id: "AbTrace139100"
          }
        }, { status: 400 })))
      const reply = yield* request("POST", at(s.chat, "block-users"), { key: s.key, body: { users: ["+16505551234", "+16505550000"] } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({
        channel_id: s.chat,
        succeeded: [{ user: "+16505551234", wa_id: "16505551234" }],
        failed: [{ user: "+16505550000", errors: [{ code: 131047, message: "Re-engagement required: User has not messaged in the last 24 hours" }] }]
      })
    }))

  it.effect("a 400 of block-users without a per-user list is a 502 like any other upstream error", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const fixture = META_ERROR_FIXTURES.find((f) => f.expected_body.meta_code === 130429 && f.http_status === 400)!
      msw.use(...errorHandlers(fixture))
      const reply = yield* request("POST", at(s.chat, "block-users"), { key: s.key, body: { users: ["+16505551234"] } })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.body.detail).toMatchObject({ code: "upstream_error", error: "throughput_limited", meta_code: 130429 })
    }))

  const fixtures = META_ERROR_FIXTURES.filter((f) => ["190/463 expired token", "100 invalid parameter", "an unknown future code"].includes(f.name))
  for (const fixture of fixtures) {
    it.effect(`Meta's ${fixture.name} is a 502 upstream_error carrying Meta's code and trace on every operation`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        for (const op of CALLS) {
          const rec = makeRecorder()
          msw.use(...errorHandlers(fixture, rec))
          const reply = yield* request(op.method, at(s.chat, op.edge), { key: s.key, body: op.body })
          const name = `${op.method} ${op.edge}`
          expect(reply.status, `${name}: ${reply.text}`).toBe(502)
          const { message, ...meta } = fixture.expected_body
          expect(reply.body, name).toEqual({ detail: { code: "upstream_error", message: expect.stringContaining(message), ...meta } })
          expect(reply.text).not.toContain(TOKEN)
          expect(rec.calls.length, name).toBe(1)
          expect(`${rec.calls[0]!.method} ${rec.calls[0]!.url}`.startsWith(op.upstream), name).toBe(true)
          msw.resetHandlers()
        }
      }))
  }

  it.effect("an upstream error that quotes the token or the PIN reaches neither the 502 body nor the log", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      msw.use(http.post(`${GRAPH}/${VERSION}/:pnid`, () =>
        HttpResponse.json({
          error: {
            message: `(#100) Invalid parameter pin=${PIN} for token ${TOKEN}`,
            type: "OAuthException",
            code: 100,
            error_data: { messaging_product: "whatsapp", details: `pin ${PIN} rejected` },
            fbtrace_id: "AbTrace100"
          }
        }, { status: 400 })))
      logs.lines.length = 0
      const reply = yield* request("POST", at(s.chat, "two-factor"), { key: s.key, body: { pin: PIN } })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.body.detail).toMatchObject({ code: "upstream_error", error: "invalid_parameter", meta_code: 100, fbtrace_id: "AbTrace100" })
      expect(reply.body.detail.message).toContain("[redacted]")
      expect(reply.text).not.toContain(PIN)
      expect(reply.text).not.toContain(TOKEN)
      const logged = JSON.stringify(logs.lines)
      expect(logged).toContain("upstream call failed")
      expect(logged).not.toContain(PIN)
      expect(logged).not.toContain(TOKEN)
    }))

  it.effect("an unreachable upstream is a 502 upstream_error of kind network", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      msw.use(http.post(`${GRAPH}/${VERSION}/:pnid/block_users`, () => HttpResponse.error()))
      const reply = yield* request("POST", at(s.chat, "block-users"), { key: s.key, body: { users: ["+16505551234"] } })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.body.detail).toMatchObject({ code: "upstream_error", error: "network", meta_code: null })
    }))
})
