import { SqlClient } from "@effect/sql"
import { afterEach, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { http, HttpResponse } from "msw"
import { Secrets } from "../../src/crypto/secrets.js"
import { GRAPH, makeRecorder, META_RESPONSES, successHandlers, VERSION } from "../fixtures/meta/index.js"
import { graphMock } from "../support/graph-mock.js"
import { capturedLogs, connectChat, connectSocial, SandboxTestServer, signup } from "../support/sandbox.js"

/*
 * UPSTREAM=meta: the same onboarding code against Meta's documented bodies (msw).
 * Requests to the test server itself (127.0.0.1) pass through.
 */
const recorder = makeRecorder()
const server = graphMock("bypass")
afterEach(() => {
  recorder.calls.length = 0
})

const APP_SECRET = "msw-app-secret-value"

const storedToken = (channelId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const [row] = yield* sql<{ token: Uint8Array }>`select access_token_encrypted as token from platform_channels where id = ${channelId}`
    return Redacted.value(yield* secrets.decrypt(row!.token))
  })

layer(
  SandboxTestServer({
    UPSTREAM: "meta",
    META_GRAPH_URL: GRAPH,
    META_GRAPH_VERSION: VERSION,
    META_APP_ID: "334185239753467",
    META_APP_SECRET: APP_SECRET
  }),
  { timeout: 60_000 }
)("channel connect with UPSTREAM=meta", (it) => {
  it.effect("chat: code exchange (form POST), register with the PIN, subscribe the WABA, read the number", () =>
    Effect.gen(function*() {
      server.use(...successHandlers(recorder))
      const dev = yield* signup("meta-chat")
      const reply = yield* connectChat(dev, { code: "AQD-signup-code", pin: "135790" })
      expect(reply.status, reply.text).toBe(201)
      const pnid: string = reply.body.phone_number_id
      const waba: string = reply.body.waba_id
      expect(recorder.calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual([
        `POST /${VERSION}/oauth/access_token`,
        `POST /${VERSION}/${pnid}/register`,
        `POST /${VERSION}/${waba}/subscribed_apps`,
        `GET /${VERSION}/${pnid}`
      ])
      const exchange = new URLSearchParams(recorder.calls[0]!.body)
      expect(Object.fromEntries(exchange)).toEqual({ client_id: "334185239753467", client_secret: APP_SECRET, code: "AQD-signup-code" })
      expect(recorder.calls[0]!.url).not.toContain("code=")
      expect(JSON.parse(recorder.calls[1]!.body)).toEqual({ messaging_product: "whatsapp", pin: "135790" })
      for (const call of recorder.calls.slice(1)) expect(call.authorization).toBe(`Bearer ${META_RESPONSES.token.access_token}`)
      expect(reply.body).toMatchObject({
        name: META_RESPONSES.phoneNumber.verified_name,
        display_phone_number: META_RESPONSES.phoneNumber.display_phone_number,
        quality_rating: "GREEN"
      })
      expect(yield* storedToken(reply.body.channel_id)).toBe(META_RESPONSES.token.access_token)
    }))

  it.effect("social: the Page token and the linked Instagram account are stored", () =>
    Effect.gen(function*() {
      server.use(...successHandlers(recorder))
      const dev = yield* signup("meta-social")
      const reply = yield* connectSocial(dev)
      expect(reply.status, reply.text).toBe(201)
      expect(Object.fromEntries(new URLSearchParams(recorder.calls[0]!.body))).toMatchObject({
        code: "oauth-code",
        redirect_uri: "https://app.example/callback"
      })
      const account = META_RESPONSES.accounts.data[0]
      expect(reply.body).toMatchObject({ type: "social", social_id: account.instagram_business_account.id, name: account.instagram_business_account.username })
      expect(yield* storedToken(reply.body.channel_id)).toBe(account.access_token)
    }))

  it.effect("an error that echoes the token is a 502 naming Meta's code; the token is in neither the body nor a log line", () =>
    Effect.gen(function*() {
      const token = META_RESPONSES.token.access_token
      server.use(
        http.post(`${GRAPH}/${VERSION}/:pnid/register`, () =>
          HttpResponse.json({
            error: {
              message: `Invalid OAuth access token - Cannot parse access token ${token}`,
              type: "OAuthException",
              code: 190,
              fbtrace_id: "AmswTrace190"
            }
          }, { status: 401 })),
        ...successHandlers(recorder)
      )
      const dev = yield* signup("meta-error")
      const logsBefore = capturedLogs.length
      const reply = yield* connectChat(dev)
      expect(reply.status).toBe(502)
      expect(reply.body.detail).toEqual({
        code: "upstream_error",
        message: "phone number registration failed at the upstream: Invalid OAuth access token - Cannot parse access token [redacted] (code 190, fbtrace_id AmswTrace190)"
      })
      expect(reply.text).not.toContain(token)
      const logs = capturedLogs.slice(logsBefore)
      expect(logs.some((l) => l.includes("channel connect failed at the upstream"))).toBe(true)
      for (const line of logs) expect(line).not.toContain(token)
      expect(recorder.calls.some((c) => c.url.endsWith("/subscribed_apps"))).toBe(false)
    }))
})
