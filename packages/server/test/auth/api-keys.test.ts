import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Scopes } from "@platform/shared"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { generateApiKey, hashApiKey, hashApiKeyHex } from "../../src/crypto/api-key-format.js"
import { AuthTestServer, createKey, request, signup } from "./support.js"

const CHANNELS = "/platform/v1/channels"
const later = (ms: number) => new Date(Date.now() + ms).toISOString()

layer(AuthTestServer(), { timeout: 60_000 })("API keys", (it) => {
  it.effect("the in-process cache key is the hex of the stored SHA-256 hash", () =>
    Effect.sync(() => {
      for (const key of [generateApiKey(), generateApiKey(), "pk_live_" + "é".repeat(40)]) {
        expect(hashApiKeyHex(key)).toBe(hashApiKey(key).toString("hex"))
        expect(hashApiKeyHex(key)).toBe(createHash("sha256").update(key, "utf8").digest("hex"))
      }
    }))

  it.effect("a created key is pk_live_ and 32+ base62 characters, shown once, stored only as a SHA-256 hash", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const created = yield* createKey(dev, { name: "ci" })
      expect(created.key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/)
      expect(created.body).toMatchObject({
        name: "ci",
        prefix: created.key.slice(0, 12),
        scopes: [...Scopes],
        is_active: true,
        expires_at: null,
        last_used_at: null,
        rate_limit_per_minute: 60
      })
      const listed = yield* request("GET", "/platform/dashboard/api-keys", { cookie: dev.cookie })
      expect(listed.status).toBe(200)
      expect(listed.text).not.toContain(created.key)
      expect(listed.body[0]).not.toHaveProperty("key")

      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ key_hash: Uint8Array; prefix: string }>`select key_hash, prefix from api_keys where id = ${created.id}`
      expect(Buffer.from(row!.key_hash).toString("hex")).toBe(createHash("sha256").update(created.key).digest("hex"))
      const dump = yield* sql<{ t: string }>`select row_to_json(k)::text as t from api_keys k where id = ${created.id}`
      expect(dump[0]!.t).not.toContain(created.key)
    }))

  it.effect.each([
    // Creation refuses a past expires_at (422 below); the row is aged instead, before the key's first use.
    { case: "expired before its first use", expires: "aged", patch: null, wait: 0 },
    { case: "expired by PATCH", expires: null, patch: { expires_at: "2020-01-01T00:00:00Z" }, wait: 0 },
    { case: "deactivated by PATCH", expires: null, patch: { is_active: false }, wait: 0 },
    { case: "expired while cached", expires: "in 1.5 s", patch: null, wait: 1600 }
  ])("a key $case is 401", ({ expires, patch, wait }) =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const expires_at = expires === "in 1.5 s" ? later(1500) : expires === "aged" ? later(60_000) : expires
      const { id, key } = yield* createKey(dev, expires_at === null ? {} : { expires_at })
      if (expires === "aged") {
        const sql = yield* SqlClient.SqlClient
        yield* sql`update api_keys set expires_at = '2020-01-01T00:00:00Z' where id = ${id}`
      }
      if (patch === null && wait > 0) {
        expect((yield* request("GET", CHANNELS, { key })).status).toBe(200)
      }
      if (patch !== null) {
        expect((yield* request("GET", CHANNELS, { key })).status).toBe(200)
        const patched = yield* request("PATCH", `/platform/dashboard/api-keys/${id}`, { cookie: dev.cookie, body: patch })
        expect(patched.status).toBe(200)
      }
      if (wait > 0) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, wait)))
      const reply = yield* request("GET", CHANNELS, { key })
      expect(reply.status).toBe(401)
      expect(reply.body).toEqual({ detail: { code: "unauthorized", message: expect.any(String) } })
      // It names the header a key goes in, the usual mistake being another one (Authorization: Bearer).
      expect(reply.body.detail.message).toBe("API key missing, invalid, inactive or expired: send a key of this account in the X-API-Key header")
      expect(reply.headers.get("x-ratelimit-limit")).toBeNull()
    }))

  it.effect("a reactivated key works again and a deleted key is 401", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const { id, key } = yield* createKey(dev)
      const path = `/platform/dashboard/api-keys/${id}`
      yield* request("PATCH", path, { cookie: dev.cookie, body: { is_active: false } })
      expect((yield* request("GET", CHANNELS, { key })).status).toBe(401)
      yield* request("PATCH", path, { cookie: dev.cookie, body: { is_active: true } })
      expect((yield* request("GET", CHANNELS, { key })).status).toBe(200)
      expect((yield* request("DELETE", path, { cookie: dev.cookie })).status).toBe(204)
      expect((yield* request("GET", CHANNELS, { key })).status).toBe(401)
      expect((yield* request("DELETE", path, { cookie: dev.cookie })).status).toBe(404)
    }))

  it.effect("scopes are fixed at creation: a key without read:channels is 403 and PATCH cannot add scopes", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const { id, key } = yield* createKey(dev, { scopes: ["send:messages", "manage:channels"] })
      const reply = yield* request("GET", CHANNELS, { key })
      expect(reply.status).toBe(403)
      expect(reply.body.detail).toMatchObject({ code: "missing_scope", required_scope: "read:channels" })
      const patch = yield* request("PATCH", `/platform/dashboard/api-keys/${id}`, {
        cookie: dev.cookie,
        body: { scopes: [...Scopes] }
      })
      expect(patch.status).toBe(422)
      expect(patch.body.detail[0].loc).toEqual(["body", "scopes"])
      expect((yield* request("GET", CHANNELS, { key })).status).toBe(403)
    }))

  it.effect("a key created before a scope existed does not gain it when the scope is added", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      // A key from before read:channels was introduced: its stored scopes are the ten older ones.
      const older = Scopes.filter((s) => s !== "read:channels")
      const plaintext = "pk_live_" + "A".repeat(20) + Date.now().toString(36).padStart(20, "0")
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into api_keys (developer_account_id, name, prefix, key_hash, scopes)
        values (${dev.accountId}, 'legacy', ${plaintext.slice(0, 12)}, ${hashApiKey(plaintext)}, ${older})`
      const list = yield* request("GET", CHANNELS, { key: plaintext })
      expect(list.status).toBe(403)
      expect(list.body.detail.required_scope).toBe("read:channels")
      const operate = yield* request("PATCH", `${CHANNELS}/999999/inbound`, { key: plaintext, body: { enabled: false } })
      expect(operate.status).toBe(404)
    }))

  it.effect("rate_limit_per_minute is 1 to 1,000,000,000 at create and PATCH: beyond is 422 at its loc, not a 500", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const { id } = yield* createKey(dev, { rate_limit_per_minute: 1_000_000_000 })
      const path = `/platform/dashboard/api-keys/${id}`
      for (const limit of [1_000_000_001, 2 ** 31, 3_000_000_000, Number.MAX_SAFE_INTEGER]) {
        const created = yield* request("POST", "/platform/dashboard/api-keys", {
          cookie: dev.cookie,
          body: { name: "x", rate_limit_per_minute: limit }
        })
        expect(created.status).toBe(422)
        expect(created.body.detail).toEqual([
          expect.objectContaining({ loc: ["body", "rate_limit_per_minute"], input: limit })
        ])
        const patched = yield* request("PATCH", path, { cookie: dev.cookie, body: { rate_limit_per_minute: limit } })
        expect(patched.status).toBe(422)
        expect(patched.body.detail[0].loc).toEqual(["body", "rate_limit_per_minute"])
      }
      const listed = yield* request("GET", "/platform/dashboard/api-keys", { cookie: dev.cookie })
      expect(listed.body).toEqual([expect.objectContaining({ id, rate_limit_per_minute: 1_000_000_000 })])
    }))

  it.effect("creation validates the body: unknown scopes, non-positive limits, days a month lacks, missing and over-long names are 422", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      for (const [body, loc] of [
        [{ name: "x", scopes: ["read:everything"] }, ["body", "scopes", 0]],
        [{ name: "x", rate_limit_per_minute: 0 }, ["body", "rate_limit_per_minute"]],
        [{ name: "x", expires_at: "2026-02-30T00:00:00Z" }, ["body", "expires_at"]],
        [{ name: "k".repeat(201) }, ["body", "name"]],
        [{ name: "x", expires_at: "2031-06-31T12:00:00+02:00" }, ["body", "expires_at"]],
        [{}, ["body", "name"]],
        [{ name: "x", scopes: [] }, ["body", "scopes"]],
        [{ name: "x", expires_at: "2020-01-01T00:00:00Z" }, ["body", "expires_at"]]
      ] as const) {
        const reply = yield* request("POST", "/platform/dashboard/api-keys", { cookie: dev.cookie, body })
        expect(reply.status).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(loc)
      }
      // Neither a key that can call nothing nor one born expired was created.
      expect((yield* request("GET", "/platform/dashboard/api-keys", { cookie: dev.cookie })).body).toEqual([])
    }))
})
