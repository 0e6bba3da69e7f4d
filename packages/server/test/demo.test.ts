import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { ensureDemo, renderCreated, renderExists } from "../src/demo.js"
import { DomainLive } from "../src/services.js"
import { baseUrl, TestServer as Server } from "./support/server.js"

/** The test server with the domain services in context (the same DomainLive value its routes use). */
const TestServer = (overrides: Record<string, string> = {}) => DomainLive.pipe(Layer.provideMerge(Server(overrides)))

layer(TestServer(), { timeout: 60_000 })("first-run demo account", (it) => {
  it.effect("created once on an empty database (pro, demo, two connected channels, a working key); later starts only say it exists", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const first = yield* ensureDemo({ password: "demo-password-1" })
      if (first._tag !== "Created") return expect.fail(`expected Created, got ${first._tag}`)
      expect(first.password).toBe("demo-password-1")
      expect(first.key).toMatch(/^pk_live_/)
      const [account] = yield* sql<{ plan: string; is_demo: boolean }>`select plan, is_demo from developer_accounts where id = ${first.accountId}`
      expect(account).toEqual({ plan: "pro", is_demo: true })
      expect(Option.getOrThrow(first.chat)).toMatchObject({ type: "chat", status: "active" })
      expect(Option.getOrThrow(first.social)).toMatchObject({ type: "social", status: "active" })
      // Nothing secret in plain text: the key and the password exist only as hashes.
      const [stored] = yield* sql<{ n: number }>`
        select count(*)::int as n from api_keys k, users u
        where k.key_hash = ${first.key} or u.password_hash like '%demo-password-1%'`
      expect(stored!.n).toBe(0)
      const base = yield* baseUrl
      const listed = yield* Effect.promise(() =>
        fetch(`${base}/platform/v1/channels`, { headers: { "x-api-key": first.key } }).then((r) => r.json())
      )
      expect((listed as Array<{ type: string }>).map((c) => c.type).sort()).toEqual(["chat", "social"])
      const block = renderCreated(first, base, Option.none())
      expect(block).toContain(`export PLATFORM_API_KEY=${first.key}`)
      expect(block).toContain(`export CHANNEL_ID=${Option.getOrThrow(first.chat).channel_id}`)

      const again = yield* ensureDemo({ password: "other-password" })
      expect(again).toEqual({ _tag: "Exists", email: "demo@example.com" })
      expect(renderExists("demo@example.com", base)).not.toContain("pk_live_")
      const [count] = yield* sql<{ n: number }>`select count(*)::int as n from api_keys`
      expect(count!.n).toBe(1)
    }))
})

layer(TestServer({ UPSTREAM: "meta", META_GRAPH_URL: "http://127.0.0.1:9" }))("no demo with the meta upstream", (it) => {
  it.effect("skipped", () =>
    Effect.gen(function*() {
      expect((yield* ensureDemo())._tag).toBe("Skipped")
      const sql = yield* SqlClient.SqlClient
      expect((yield* sql<{ n: number }>`select count(*)::int as n from developer_accounts`)[0]!.n).toBe(0)
    }))
})

layer(TestServer({ NODE_ENV: "production", UNSAFE_ALLOW_LOCAL_TARGETS: "false", ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"), SESSION_SECRET: "s".repeat(32) }))(
  "no demo in production",
  (it) => {
    it.effect("skipped", () =>
      Effect.gen(function*() {
        expect((yield* ensureDemo())._tag).toBe("Skipped")
      }))
  }
)
