import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { baseUrl, TestServer } from "./support/server.js"

const get = (path: string, init?: RequestInit) =>
  Effect.flatMap(baseUrl, (base) => Effect.promise(() => fetch(base + path, init)))

layer(TestServer())("server bootstrap", (it) => {
  it.effect("GET /healthz answers 200 while the process is up", () =>
    Effect.gen(function*() {
      const res = yield* get("/healthz")
      expect(res.status).toBe(200)
      expect(yield* Effect.promise(() => res.json())).toEqual({ status: "ok" })
    }))

  it.effect("GET /readyz answers 200 when the database answers", () =>
    Effect.gen(function*() {
      const res = yield* get("/readyz")
      expect(res.status).toBe(200)
      expect(yield* Effect.promise(() => res.json())).toEqual({ status: "ready" })
    }))

  it.effect("every response carries an X-Request-Id, echoing a sane one from the caller", () =>
    Effect.gen(function*() {
      const generated = yield* get("/healthz")
      expect(generated.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/)
      const echoed = yield* get("/healthz", { headers: { "x-request-id": "trace-123" } })
      expect(echoed.headers.get("x-request-id")).toBe("trace-123")
      const refused = yield* get("/healthz", { headers: { "x-request-id": "bad id with spaces" } })
      expect(refused.headers.get("x-request-id")).toMatch(/^req_/)
    }))

  it.effect("an unknown route is 404 with the coded body", () =>
    Effect.gen(function*() {
      const res = yield* get("/platform/v1/nothing-here")
      expect(res.status).toBe(404)
      expect(yield* Effect.promise(() => res.json())).toEqual({
        detail: { code: "not_found", message: "No route for GET /platform/v1/nothing-here" }
      })
    }))

  it.effect("GET /platform/v1/openapi.json is an OpenAPI 3.1 document of the contract", () =>
    Effect.gen(function*() {
      const res = yield* get("/platform/v1/openapi.json")
      expect(res.status).toBe(200)
      const doc = (yield* Effect.promise(() => res.json())) as {
        openapi: string
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
      }
      expect(doc.openapi).toBe("3.1.0")
      expect(Object.keys(doc.paths)).toContain("/readyz")
      // The served document is the documented contract: input that does not decode is 422, not 400.
      const getSub = doc.paths["/platform/v1/webhooks/subscriptions/{sub_id}"]!.get!
      expect(Object.keys(getSub.responses)).toContain("422")
      expect(Object.keys(getSub.responses)).not.toContain("400")
      expect(JSON.stringify(doc)).not.toContain("HttpApiDecodeError")
    }))

  it.effect("GET /platform/v1/docs serves a readable HTML reference", () =>
    Effect.gen(function*() {
      const res = yield* get("/platform/v1/docs")
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toContain("text/html")
      const page = yield* Effect.promise(() => res.text())
      expect(page).toContain("openapi")
      // Scalar's standalone script inline (loaded by the first request, see http/api-docs.ts), so the page works offline.
      expect(page).toContain("@scalar/api-reference")
      expect(page).toContain("<title>Messaging Developer Platform API</title>")
      const again = yield* get("/platform/v1/docs")
      expect(yield* Effect.promise(() => again.text())).toBe(page)
    }))

  it.effect("the migrations created every table of the product", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public'`
      const tables = rows.map((r) => r.table_name)
      for (const table of [
        "developer_accounts", "users", "sessions", "api_keys", "usage_counters", "platform_channels", "contacts",
        "conversations", "messages", "templates", "media", "webhook_subscriptions", "events", "webhook_deliveries",
        "platform_deliveries", "broadcasts", "broadcast_recipients", "idempotency_keys"
      ]) expect(tables).toContain(table)
    }))

  it.effect("bigint ids come back as JavaScript numbers", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ id: unknown }>`insert into developer_accounts (name) values ('ids') returning id`
      expect(typeof row!.id).toBe("number")
    }))
})
