import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Secrets } from "../../src/crypto/secrets.js"
import { AuthTestServer, capturedLogs, capturedResponses, connectChat, createKey, request, signup } from "./support.js"

const D = "/platform/dashboard"

/** Secrets that must never appear again after the one response allowed to carry them. */
const watched: Array<{ readonly what: string; readonly value: string; readonly allowedIn: number }> = []
const remember = (what: string, value: string) => watched.push({ what, value, allowedIn: capturedResponses.length - 1 })

layer(AuthTestServer(), { timeout: 60_000 })("secrets in responses and logs", (it) => {
  it.effect("a full dashboard and API session leaks no password, key, channel token, webhook secret or two-factor PIN", () =>
    Effect.gen(function*() {
      const dev = yield* signup("scan")
      watched.push({ what: "password", value: dev.password, allowedIn: -1 })
      const created = yield* createKey(dev)
      remember("API key", created.key)
      const channel = yield* connectChat(dev)
      const webhook = yield* request("PATCH", `${D}/channels/${channel.body.channel_id}/webhook`, {
        cookie: dev.cookie,
        body: { webhook_url: "https://127.0.0.1:9443/hook" }
      })
      remember("webhook secret", webhook.body.webhook_secret)
      const sql = yield* SqlClient.SqlClient
      const secrets = yield* Secrets
      const [row] = yield* sql<{ token: Uint8Array }>`
        select access_token_encrypted as token from platform_channels where id = ${channel.body.channel_id}`
      watched.push({ what: "channel token", value: Redacted.value(yield* secrets.decrypt(row!.token)), allowedIn: -1 })

      // Exercise the surface: successes, every kind of failure, with the secrets in play.
      yield* request("POST", `${D}/login`, { body: { email: dev.email, password: dev.password } })
      yield* request("POST", `${D}/login`, { body: { email: dev.email, password: dev.password + "x" } })
      yield* request("POST", `${D}/signup`, { body: { email: dev.email, password: dev.password, name: "again" } })
      yield* request("GET", "/platform/v1/channels", { key: created.key })
      yield* request("GET", "/platform/v1/channels?type=nope", { key: created.key })
      yield* request("GET", "/platform/v1/channels", { key: created.key.slice(0, -1) })
      yield* request("PATCH", `/platform/v1/channels/${channel.body.channel_id}/inbound`, { key: created.key, rawBody: "{bad" })
      // The routes that call the upstream with the channel's token, and the two-factor PIN.
      const ch = channel.body.channel_id
      const pin = "864209"
      watched.push({ what: "two-factor PIN", value: pin, allowedIn: -1 })
      yield* request("POST", `/platform/v1/channels/${ch}/two-factor`, { key: created.key, body: { pin } })
      yield* request("POST", `/platform/v1/channels/${ch}/two-factor`, { key: created.key, body: { pin: `${pin}1` } })
      yield* request("POST", `/platform/v1/channels/${ch}/two-factor`, { key: created.key, rawBody: `{"pin": "${pin}` })
      yield* request("GET", `/platform/v1/channels/${ch}/health`, { key: created.key })
      yield* request("POST", `/platform/v1/channels/${ch}/profile`, { key: created.key, body: { about: "scan" } })
      yield* request("POST", `/platform/v1/channels/${ch}/block-users`, { key: created.key, body: { users: ["15550131047", "15551234567"] } })
      yield* request("POST", "/platform/v1/templates", {
        key: created.key,
        body: { channel_id: ch, name: "scan_tpl", language_code: "en_US", category: "utility", body_text: "Hi {{1}}", variables: ["Ana"] }
      })
      yield* request("GET", "/platform/v1/templates", { key: created.key })
      yield* request("POST", "/platform/v1/templates/sync", { key: created.key, body: { channel_id: ch } })
      yield* request("POST", "/platform/v1/broadcasts", {
        key: created.key,
        body: { name: "scan", channel_id: ch, template_name: "scan_tpl", language_code: "en_US" }
      })
      yield* request("GET", "/platform/v1/messages", { key: created.key })
      yield* request("GET", "/platform/v1/contacts", { key: created.key })
      yield* request("GET", `${D}/channels`, { cookie: dev.cookie })
      yield* request("GET", `${D}/api-keys`, { cookie: dev.cookie })
      yield* request("GET", `${D}/me`, { cookie: dev.cookie })
      yield* request("DELETE", `${D}/channels/${channel.body.channel_id}`, { cookie: dev.cookie })
      yield* request("GET", `${D}/me`, { key: created.key })

      expect(capturedLogs.length).toBeGreaterThan(10)
      for (const { allowedIn, value, what } of watched) {
        capturedResponses.forEach((response, i) => {
          if (i !== allowedIn) expect(response.includes(value), `${what} in response ${i}: ${response.slice(0, 80)}`).toBe(false)
        })
        for (const line of capturedLogs) expect(line.includes(value), `${what} in a log line`).toBe(false)
      }
    }))
})

afterAll(() => {
  expect(watched.length).toBe(5)
})
