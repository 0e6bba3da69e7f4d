import { HttpApi, OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { PlatformApi, routeTable } from "@platform/shared"
import { Option, type Schema, SchemaAST } from "effect"

// The document the server serves at /platform/v1/openapi.json (HttpApiBuilder.middlewareOpenApi).
const doc = OpenApi.fromApi(PlatformApi) as unknown as {
  tags: ReadonlyArray<{ name: string; description?: string }>
  components: { schemas: Record<string, unknown>; headers: Record<string, unknown> }
  paths: Record<string, Record<string, Operation>>
}

interface Operation {
  readonly summary?: string
  readonly description?: string
  readonly security: ReadonlyArray<Record<string, ReadonlyArray<string>>>
  readonly parameters: ReadonlyArray<{ name: string; in: string; schema: { type?: string }; description?: string }>
  readonly requestBody?: unknown
  readonly responses: Record<string, { description: string; content?: unknown; headers?: Record<string, unknown> }>
}

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op }))
)
const find = (key: string) => operations.find((o) => o.key === key)!.op
const refs = (value: unknown): Array<string> => JSON.stringify(value).match(/#\/components\/schemas\/\w+/g) ?? []

describe("the OpenAPI document", () => {
  it("gives every operation a summary and every tag a readable name and a description", () => {
    expect(operations.length).toBeGreaterThan(40)
    expect(operations.filter((o) => !o.op.summary).map((o) => o.key)).toEqual([])
    for (const tag of doc.tags) {
      expect(tag.name).not.toMatch(/^[a-z]+[A-Z]/) // not a group identifier such as dashboardApiKeys
      expect(tag.description?.length).toBeGreaterThan(10)
    }
  })

  it("documents SPEC §7's 422 for input that does not decode, never HttpApi's 400 HttpApiDecodeError", () => {
    expect(JSON.stringify(doc)).not.toContain("HttpApiDecodeError")
    // /webhook/incoming answers the upstream's protocol (its handshake, its signed POSTs), not SPEC §7.
    for (const { key, op } of operations.filter((o) => !o.key.endsWith(" /webhook/incoming"))) {
      const takesInput = op.parameters.length > 0 || op.requestBody !== undefined
      if (takesInput) expect(refs(op.responses["422"]), key).toContain("#/components/schemas/ValidationFailedBody")
    }
    // A 400 stays only where the API really answers one: chat_only, bad_request.
    expect(refs(find("POST /platform/v1/messages").responses["400"])).toEqual(["#/components/schemas/ChatOnlyBody"])
    expect(find("GET /platform/v1/webhooks/subscriptions/{sub_id}").responses["400"]).toBeUndefined()
    expect(find("GET /healthz").responses["400"]).toBeUndefined()
  })

  it("keeps every component schema referenced and none dangling", () => {
    const referenced = new Set(refs(doc).map((r) => r.slice("#/components/schemas/".length)))
    for (const name of referenced) expect(doc.components.schemas[name], name).toBeDefined()
    expect(Object.keys(doc.components.schemas).filter((name) => !referenced.has(name))).toEqual([])
  })

  it("lists every path, query and header parameter the contract decodes", () => {
    const fields = (schema: Option.Option<Schema.Schema.All>) =>
      Option.match(schema, {
        onNone: () => [],
        onSome: (s) => SchemaAST.getPropertySignatures(s.ast).map((p) => String(p.name).toLowerCase())
      })
    let checked = 0
    HttpApi.reflect(PlatformApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        const op = find(`${endpoint.method} ${endpoint.path.replace(/:(\w+)/g, "{$1}")}`)
        const documented = op.parameters.map((p) => `${p.in}:${p.name.toLowerCase()}`)
        const expected = [
          ...fields(endpoint.pathSchema).map((n) => `path:${n}`),
          ...fields(endpoint.urlParamsSchema).map((n) => `query:${n}`),
          ...fields(endpoint.headersSchema).map((n) => `header:${n}`)
        ]
        checked += expected.length
        expect(documented, `${endpoint.method} ${endpoint.path}`).toEqual(expect.arrayContaining(expected))
      }
    })
    expect(checked).toBeGreaterThan(20)
    expect(find("GET /platform/v1/webhooks/subscriptions").parameters.map((p) => p.name)).toEqual(["limit", "after", "before"])
  })

  it("describes every query and header parameter in words, and types numeric and boolean ones as what they are", () => {
    const params = operations.flatMap(({ key, op }) => op.parameters.filter((p) => p.in !== "path").map((p) => ({ key, p })))
    expect(params.length).toBeGreaterThan(15)
    for (const { key, p } of params) {
      expect(p.description ?? "", `${key} ${p.in} ${p.name}`).toMatch(/\w+ \w+/)
      // Effect's defaults for a decoded string, which tell a reader nothing about the parameter.
      expect(p.description, `${key} ${p.in} ${p.name}`).not.toMatch(/^a (string to be decoded into|number between)/)
    }
    const typeOf = (key: string, name: string) => find(key).parameters.find((p) => p.name === name)!.schema.type
    for (const [key, name] of [
      ["GET /platform/v1/webhooks/deliveries", "limit"],
      ["GET /platform/v1/webhooks/deliveries", "channel_id"],
      ["GET /platform/v1/webhooks/deliveries", "subscription_id"],
      ["GET /platform/v1/webhooks/subscriptions", "limit"],
      ["GET /platform/v1/media/{media_id}/url", "channel_id"],
      ["DELETE /platform/v1/media/{media_id}", "channel_id"],
      ["GET /platform/v1/events/stream", "channel_id"]
    ] as const) expect(typeOf(key, name), `${key} ${name}`).toBe("integer")
    expect(typeOf("GET /platform/v1/webhooks/deliveries", "errors_only")).toBe("boolean")
    expect(find("POST /platform/v1/messages").parameters.find((p) => p.name === "idempotency-key")!.description).toMatch(/24 hours/)
  })

  it("types numeric path ids as integers", () => {
    const sub = find("PATCH /platform/v1/webhooks/subscriptions/{sub_id}").parameters.find((p) => p.name === "sub_id")!
    expect(sub).toMatchObject({ in: "path", required: true, schema: { type: "integer" } })
    expect(sub.description).toBe("The subscription's id")
    for (const { key, op } of operations) {
      // Media ids are the upstream's strings; a download link's token is signed text.
      for (const p of op.parameters.filter((p) => p.in === "path" && p.name !== "media_id" && p.name !== "token")) {
        expect(p.schema.type, `${key} ${p.name}`).toBe("integer")
      }
    }
  })

  it("states each v1 route's scope and cookie rule as the route table has them (SPEC §5.3, §5.4)", () => {
    const routes = routeTable(PlatformApi)
    expect(routes.length).toBeGreaterThan(15)
    for (const route of routes) {
      const op = find(`${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`)
      expect(op.security).toEqual(route.cookie ? [{ apiKey: [] }, { cookie: [] }] : [{ apiKey: [] }])
      expect(op.description).toContain(`Scope \`${route.scope}\``)
      // Only a cookie request can be refused as cross-origin.
      expect(refs(op.responses["403"]).includes("#/components/schemas/CsrfRejectedBody")).toBe(route.cookie)
    }
    expect(find("GET /platform/v1/channels").description).toContain("Scope `read:channels`; API key only.")
    expect(find("DELETE /platform/v1/webhooks/subscriptions/{sub_id}").description).toContain(
      "Scope `manage:webhooks`; API key or dashboard session cookie."
    )
    expect(find("GET /platform/dashboard/api-keys").security).toEqual([{ cookie: [] }])
  })

  it("documents X-RateLimit-* on the responses of v1 routes and Retry-After on their 429", () => {
    const op = find("POST /platform/v1/messages")
    for (const status of ["200", "403", "404", "422", "429"]) {
      expect(Object.keys(op.responses[status]!.headers ?? {}), status).toEqual(
        expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"])
      )
    }
    expect(Object.keys(op.responses["429"]!.headers!)).toContain("Retry-After")
    expect(op.responses["200"]!.headers!["Retry-After"]).toBeUndefined()
    // The limit runs once the key is known: a 401 carries none.
    expect(op.responses["401"]!.headers).toBeUndefined()
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"])
    )
    expect(find("GET /platform/dashboard/me").responses["200"]!.headers).toBeUndefined()
  })

  it("declares 503 database_unavailable with Retry-After on every operation but the probes, and 503 outcome_pending on the send", () => {
    const schemaOf = (op: Operation, status: string) =>
      JSON.stringify((op.responses[status]?.content as { "application/json"?: unknown } | undefined)?.["application/json"]) ?? ""
    // The probes, and the upstream's handshake (it answers from configuration alone).
    const probes = ["GET /healthz", "GET /readyz", "GET /webhook/incoming"]
    for (const { key, op } of operations.filter((o) => !probes.includes(o.key))) {
      expect(schemaOf(op, "503"), key).toContain("#/components/schemas/DatabaseUnavailableBody")
      expect(Object.keys(op.responses["503"]!.headers ?? {}), key).toContain("Retry-After")
      expect(op.responses["503"]!.description, key).toMatch(/database_unavailable/)
    }
    expect(operations.filter((o) => schemaOf(o.op, "503").includes("SendOutcomePendingBody")).map((o) => o.key))
      .toEqual(["POST /platform/v1/messages"])
    expect(find("GET /healthz").responses["503"]).toBeUndefined()
    expect(schemaOf(find("GET /readyz"), "503")).not.toContain("DatabaseUnavailableBody")
    expect(doc.components.schemas.DatabaseUnavailableBody).toMatchObject({
      properties: { detail: { required: ["code", "message", "request_id"], properties: { code: { enum: ["database_unavailable"] } } } }
    })
  })

  it("says what each error status means instead of a bare 'Error'", () => {
    const descriptions = operations.flatMap(({ op }) => Object.values(op.responses).map((r) => r.description))
    expect(descriptions).not.toContain("Error")
    expect(find("GET /platform/v1/webhooks/deliveries/{delivery_id}").responses["404"]!.description).toMatch(/^Not found/)
    expect(find("GET /platform/v1/channels/{channel_id}/health").responses["400"]!.description).toMatch(/chat_only/)
    expect(find("POST /platform/v1/channels/{channel_id}/display-name").responses["501"]!.description).toMatch(/^Not implemented/)
    // It never succeeds: no 2xx is documented.
    expect(Object.keys(find("POST /platform/v1/channels/{channel_id}/display-name").responses).filter((s) => s.startsWith("2"))).toEqual([])
    expect(descriptions).not.toContain("The request did not match the expected schema")
  })
})
