import { verify as octokitVerify } from "@octokit/webhooks-methods"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { Webhook } from "standardwebhooks"
import { Secrets } from "../../src/crypto/secrets.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import {
  newSubscriptionSecret,
  platformSignature,
  standardKey,
  standardSignature,
  stripReservedHeaders
} from "../../src/delivery/signer.js"
import { createAccount, createSubscription, drainDeliveries, TestEngine, writeMessageEvent } from "../support/delivery.js"
import { ENVELOPE_KEYS, formOf } from "../support/envelope-form.js"
import { startReceiver, type Received } from "../support/receiver.js"

interface Vectors {
  readonly platform_signature: ReadonlyArray<{ name: string; secret: string; body: string; header: string }>
  readonly standard_webhooks: ReadonlyArray<
    { name: string; secret: string; id: string; timestamp: number; body: string; signature: string }
  >
}

const vectors = JSON.parse(
  readFileSync(new URL("../../../webhook-verify/test/vectors.json", import.meta.url), "utf8")
) as Vectors

const NON_ASCII = "Olá! Tudo bem? 👋🏽 こんにちは — ça va? Ünïcödé"

const headersOf = (r: Received): Record<string, string> =>
  Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v ?? ""]))

layer(TestEngine, { excludeTestServices: true })("delivery signatures", (it) => {
  it.effect("the signer reproduces every shared vector of webhook-verify", () =>
    Effect.sync(() => {
      for (const v of vectors.platform_signature) {
        expect(platformSignature(v.secret, Buffer.from(v.body, "utf8")), v.name).toBe(v.header)
      }
      for (const v of vectors.standard_webhooks) {
        expect(standardSignature(standardKey(v.secret), v.id, v.timestamp, Buffer.from(v.body, "utf8")), v.name)
          .toBe(v.signature)
      }
    }))

  it.effect("a new secret is whsec_ with at least 32 random bytes", () =>
    Effect.sync(() => {
      const a = newSubscriptionSecret()
      expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
      expect(standardKey(a).length).toBeGreaterThanOrEqual(32)
      expect(newSubscriptionSecret()).not.toBe(a)
    }))

  it.effect("reserved custom headers are stripped case-insensitively", () =>
    Effect.sync(() => {
      expect(stripReservedHeaders({
        "X-Platform-Signature": "forged",
        "x-platform-event": "x",
        "X-PLATFORM-EVENT-ID": "x",
        "X-Platform-Delivery-Id": "x",
        "content-type": "text/plain",
        AUTHORIZATION: "Bearer x",
        "Webhook-Signature": "v1,forged",
        "X-Tenant": "acme"
      })).toEqual({ "X-Tenant": "acme" })
    }))

  // Rows stored before create/PATCH refused such values are delivered without them, not failed at every attempt.
  it.effect("custom headers no request could carry are left out at delivery; Latin-1 and tabs stay", () =>
    Effect.sync(() => {
      expect(stripReservedHeaders({ "X-Uni": "日本", "X-Ctl": "a\u0001b", "X Bad": "v", "X-Latin": "caf\u00e9\tok" }))
        .toEqual({ "X-Latin": "caf\u00e9\tok" })
    }))

  it.scoped("a delivery with non-ASCII text verifies with @octokit/webhooks-methods and standardwebhooks", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({
        accountId,
        url: receiver.url,
        customHeaders: { "X-Tenant": "acme", "x-platform-signature": "forged", Authorization: "Bearer leak" }
      })
      const event = yield* writeMessageEvent({ accountId, channelId, peer: "p-ü", text: NON_ASCII })
      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      const [r] = yield* receiver.waitFor(1)
      const body = r!.body.toString("utf8")
      expect(body).toContain(NON_ASCII)
      expect(JSON.parse(body)).toEqual(event.envelope)
      // The bytes sent are the event's stored text, compact, keys in SPEC §6.2 order.
      expect(formOf(body)).toMatchObject({ compact: true, keys: ENVELOPE_KEYS })
      const [stored] = yield* (yield* SqlClient.SqlClient)<{ text: string }>`
        select envelope::text as text from events where event_id = ${event.envelope.id}`
      expect(body).toBe(stored!.text)
      const h = headersOf(r!)
      expect(h).toMatchObject({
        "content-type": "application/json",
        "user-agent": "Service-Platform/1.0",
        "x-platform-event": "message.sent",
        "x-platform-event-id": event.envelope.id,
        "webhook-id": event.envelope.id,
        "x-tenant": "acme"
      })
      expect(h["authorization"]).toBeUndefined()
      expect(h["x-platform-delivery-id"]).toMatch(/^\d+$/)
      expect(Math.abs(Number(h["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30)
      expect(yield* Effect.promise(() => octokitVerify(sub.secret, body, h["x-platform-signature"]!))).toBe(true)
      expect(yield* Effect.promise(() => octokitVerify(newSubscriptionSecret(), body, h["x-platform-signature"]!)))
        .toBe(false)
      expect(new Webhook(sub.secret).verify(body, h)).toEqual(event.envelope)
      expect(() => new Webhook(newSubscriptionSecret()).verify(body, h)).toThrow()
    }))

  it.scoped("during a rotation overlap webhook-signature carries the new and the previous signature", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const secrets = yield* Secrets
      const receiver = yield* startReceiver()
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: receiver.url })
      const next = newSubscriptionSecret()
      yield* sql`update webhook_subscriptions set secret_encrypted = ${secrets.encrypt(next)},
        previous_secret_encrypted = ${secrets.encrypt(sub.secret)},
        previous_secret_expires_at = now() + interval '24 hours', updated_at = now()
        where id = ${sub.id}`
      yield* writeMessageEvent({ accountId, channelId, peer: "p", text: NON_ASCII })
      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      const [r] = yield* receiver.waitFor(1)
      const h = headersOf(r!)
      const body = r!.body.toString("utf8")
      expect(h["webhook-signature"]!.split(" ")).toHaveLength(2)
      expect(new Webhook(next).verify(body, h)).toBeTruthy()
      expect(new Webhook(sub.secret).verify(body, h)).toBeTruthy()
      expect(yield* Effect.promise(() => octokitVerify(next, body, h["x-platform-signature"]!))).toBe(true)

      // Once the overlap has passed only the new secret signs.
      yield* sql`update webhook_subscriptions set previous_secret_expires_at = now() - interval '1 second',
        updated_at = now() where id = ${sub.id}`
      yield* writeMessageEvent({ accountId, channelId, peer: "p2" })
      yield* (yield* FanOut).runOnce()
      yield* drainDeliveries()
      const [, r2] = yield* receiver.waitFor(2)
      const h2 = headersOf(r2!)
      expect(h2["webhook-signature"]!.split(" ")).toHaveLength(1)
      expect(() => new Webhook(sub.secret).verify(r2!.body.toString("utf8"), h2)).toThrow()
    }))
})
