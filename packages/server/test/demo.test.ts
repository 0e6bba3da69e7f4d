import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { existsSync } from "node:fs"
import { afterEach, describe, it } from "vitest"
import { DEMO_EMAIL, ensureDemo, renderCreated, renderExists } from "../src/demo.js"
import { DomainLive } from "../src/services.js"
import { freePort, removeScratch, run, serverEnv, serverMain, stopAll, untilAnswer } from "./support/process.js"
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
      // A plain start (sandbox, not production) announces that local receivers are accepted.
      expect(block).not.toContain("may be http:// and localhost")
      expect(renderCreated(first, base, Option.none(), true)).toContain("webhook targets may be http:// and localhost")
      expect(renderExists("demo@example.com", base, true)).toContain("webhook targets may be http:// and localhost")

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

describe("readiness at the first start", () => {
  afterEach(async () => {
    stopAll()
    await removeScratch()
  })

  it("/readyz first answers 200 once the demo account exists: its login works and both its channels are connected at once; /healthz answers before", async () => {
    expect(existsSync(serverMain), "build the server first (npm run build -w @platform/server)").toBe(true)
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const password = "demo-password-ready"
    const server = run(process.execPath, [serverMain], {
      env: serverEnv({ PORT: String(port), PUBLIC_URL: base, PGLITE_MEMORY: "1", DEMO_PASSWORD: password })
    })
    // Both polled from before the server listens.
    let healthy = Number.POSITIVE_INFINITY
    const healthz = untilAnswer(server, `${base}/healthz`).then(() => (healthy = Date.now()))
    await untilAnswer(server, `${base}/readyz`)
    const ready = Date.now()
    await healthz
    expect(healthy).toBeLessThanOrEqual(ready)

    const login = await fetch(`${base}/platform/dashboard/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: DEMO_EMAIL, password })
    })
    expect(login.status).toBe(200)
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
    const channels = (await fetch(`${base}/platform/dashboard/channels`, { headers: { cookie } }).then((r) => r.json())) as Array<{
      type: string
      status: string
    }>
    expect(channels.map((c) => [c.type, c.status]).sort()).toEqual([["chat", "active"], ["social", "active"]])
    // The block was printed before readiness was given.
    expect(server.output()).toContain("Demo account created")
    server.child.kill("SIGTERM")
    expect(await server.exit).toEqual({ code: 0, signal: null })
  }, 90_000)
})
