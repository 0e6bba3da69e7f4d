import { HttpApi } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { ApiKeyAuth, DashboardAuth, PlatformApi, routeTable, type Scope, Scopes } from "@platform/shared"
import { Effect } from "effect"
import { AuthTestServer, createKey, type Dev, probe, signup } from "./support.js"

/*
 * SPEC §5.3 (scope per route family) and §5.4 (where the cookie is accepted), written
 * out independently of the annotations. Every v1 route of the HttpApi must match
 * exactly one rule and carry exactly its scope and cookie flag: a new route without
 * a rule here, or with a different annotation, fails.
 */
const V1 = "/platform/v1"
const SPEC_RULES: ReadonlyArray<{
  readonly methods: ReadonlyArray<string>
  readonly path: RegExp
  readonly scope: Scope
  readonly cookie: boolean
}> = [
  { methods: ["POST"], path: /^\/platform\/v1\/messages(\/mark-read)?$/, scope: "send:messages", cookie: false },
  { methods: ["GET"], path: /^\/platform\/v1\/messages(\/:[a-z_]+)?$/, scope: "read:messages", cookie: false },
  { methods: ["*"], path: /^\/platform\/v1\/templates(\/.*)?$/, scope: "manage:templates", cookie: true },
  { methods: ["POST", "GET", "DELETE"], path: /^\/platform\/v1\/media(\/.*)?$/, scope: "upload:media", cookie: false },
  { methods: ["GET"], path: /^\/platform\/v1\/conversations(\/:[a-z_]+)?$/, scope: "read:conversations", cookie: false },
  { methods: ["PATCH"], path: /^\/platform\/v1\/conversations\/:[a-z_]+$/, scope: "manage:data", cookie: false },
  { methods: ["GET"], path: /^\/platform\/v1\/contacts(\/:[a-z_]+)?$/, scope: "read:contacts", cookie: false },
  { methods: ["PATCH", "DELETE"], path: /^\/platform\/v1\/contacts\/:[a-z_]+$/, scope: "manage:data", cookie: false },
  {
    methods: ["*"],
    path: /^\/platform\/v1\/webhooks\/(subscriptions|deliveries)(\/.*)?$/,
    scope: "manage:webhooks",
    cookie: true
  },
  { methods: ["GET"], path: /^\/platform\/v1\/channels$/, scope: "read:channels", cookie: false },
  {
    methods: ["*"],
    path: /^\/platform\/v1\/channels\/:[a-z_]+\/(health|profile|display-name|block-users|two-factor|inbound)$/,
    scope: "manage:channels",
    cookie: true
  },
  { methods: ["*"], path: /^\/platform\/v1\/broadcasts(\/.*)?$/, scope: "send:broadcasts", cookie: true },
  // Not in SPEC: the live event stream of `platform events tail`, grouped with the webhook routes.
  { methods: ["GET"], path: /^\/platform\/v1\/events\/stream$/, scope: "manage:webhooks", cookie: true }
]

/** Routes that need no credential at all. */
const PUBLIC_ROUTES = new Set([
  "GET /healthz",
  "GET /readyz",
  "POST /platform/dashboard/signup",
  "POST /platform/dashboard/login",
  "POST /platform/dashboard/logout"
])

interface Route {
  readonly method: string
  readonly path: string
  readonly apiKey: boolean
  readonly dashboard: boolean
}

const allRoutes: Array<Route> = []
HttpApi.reflect(PlatformApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, middleware }) => {
    allRoutes.push({
      method: endpoint.method,
      path: endpoint.path,
      apiKey: middleware.has(ApiKeyAuth as never),
      dashboard: middleware.has(DashboardAuth as never)
    })
  }
})

const table = routeTable(PlatformApi)
const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, "999999")
const bodyFor = (method: string) => (["POST", "PATCH", "PUT"].includes(method) ? { body: {} } : {})

describe("the route table", () => {
  it("every route is a v1 route behind ApiKeyAuth, a dashboard route behind DashboardAuth, or listed as public", () => {
    for (const route of allRoutes) {
      const name = `${route.method} ${route.path}`
      if (route.path.startsWith(`${V1}/`) && !route.path.startsWith(`${V1}/openapi`)) {
        expect(route.apiKey, `${name} must use ApiKeyAuth`).toBe(true)
      } else if (route.path.startsWith("/platform/dashboard/") && !PUBLIC_ROUTES.has(name)) {
        expect(route.dashboard, `${name} must use DashboardAuth`).toBe(true)
        expect(route.apiKey, `${name} must not accept an API key`).toBe(false)
      } else {
        expect(PUBLIC_ROUTES.has(name), `${name} is neither authenticated nor listed as public`).toBe(true)
      }
    }
  })

  it("every v1 route carries the scope and cookie flag of SPEC §5.3/§5.4, and exactly one rule matches it", () => {
    expect(table.length).toBeGreaterThan(0)
    for (const entry of table) {
      const name = `${entry.method} ${entry.path}`
      const rules = SPEC_RULES.filter((r) =>
        r.path.test(entry.path) && (r.methods.includes("*") || r.methods.includes(entry.method))
      )
      expect(rules.length, `${name}: no SPEC rule (add one to SPEC_RULES)`).toBe(1)
      expect({ scope: entry.scope, cookie: entry.cookie }, name).toEqual({ scope: rules[0]!.scope, cookie: rules[0]!.cookie })
    }
  })
})

/** The developer on a plan with every feature: the free plan's 403 plan_forbidden (broadcasts) is not authentication's. */
const onEveryFeature = (dev: Dev) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`update developer_accounts set plan = 'business' where id = ${dev.accountId}`)
    .pipe(Effect.as(dev))

layer(AuthTestServer(), { timeout: 120_000 })("v1 routes against the live server", (it) => {
  const keysFor = (dev: Dev) =>
    Effect.gen(function*() {
      const only = new Map<Scope, string>()
      const allBut = new Map<Scope, string>()
      for (const scope of Scopes) {
        only.set(scope, (yield* createKey(dev, { scopes: [scope], rate_limit_per_minute: 100000 })).key)
        allBut.set(
          scope,
          (yield* createKey(dev, { scopes: Scopes.filter((s) => s !== scope), rate_limit_per_minute: 100000 })).key
        )
      }
      return { only, allBut }
    })

  it.effect("for every v1 route: no key is 401, every scope but the route's is 403, the route's scope passes", () =>
    Effect.gen(function*() {
      const dev = yield* onEveryFeature(yield* signup("routes"))
      const { allBut, only } = yield* keysFor(dev)
      for (const entry of table) {
        const path = concrete(entry.path)
        const name = `${entry.method} ${entry.path}`
        const none = yield* probe(entry.method, path, bodyFor(entry.method))
        expect(none.status, `${name} without a key`).toBe(401)
        expect(none.body.detail.code).toBe("unauthorized")

        const invalid = yield* probe(entry.method, path, { ...bodyFor(entry.method), key: "pk_live_" + "x".repeat(40) })
        expect(invalid.status, `${name} with an unknown key`).toBe(401)

        const wrong = yield* probe(entry.method, path, { ...bodyFor(entry.method), key: allBut.get(entry.scope!)! })
        expect(wrong.status, `${name} with every scope but ${entry.scope}`).toBe(403)
        expect(wrong.body).toEqual({
          detail: { code: "missing_scope", message: expect.any(String), required_scope: entry.scope }
        })

        const right = yield* probe(entry.method, path, { ...bodyFor(entry.method), key: only.get(entry.scope!)! })
        expect([401, 403], `${name} with ${entry.scope} answered ${right.status} ${right.text}`).not.toContain(right.status)
      }
    }))

  it.effect("the dashboard cookie is accepted exactly on the v1 routes SPEC §5.4 allows", () =>
    Effect.gen(function*() {
      const dev = yield* onEveryFeature(yield* signup("cookie"))
      for (const entry of table) {
        const reply = yield* probe(entry.method, concrete(entry.path), { ...bodyFor(entry.method), cookie: dev.cookie })
        const name = `${entry.method} ${entry.path} with the cookie`
        if (entry.cookie) expect([401, 403], `${name}: ${reply.status} ${reply.text}`).not.toContain(reply.status)
        else expect(reply.status, name).toBe(401)
      }
    }))

  it.effect("every authenticated dashboard route is 401 with an API key and no cookie, and 401 with nothing", () =>
    Effect.gen(function*() {
      const dev = yield* signup("dash")
      const { key } = yield* createKey(dev)
      for (const route of allRoutes.filter((r) => r.dashboard)) {
        const path = concrete(route.path)
        const withKey = yield* probe(route.method, path, { ...bodyFor(route.method), key })
        expect(withKey.status, `${route.method} ${route.path} with a key`).toBe(401)
        const bare = yield* probe(route.method, path, bodyFor(route.method))
        expect(bare.status, `${route.method} ${route.path} bare`).toBe(401)
        const withCookie = yield* probe(route.method, path, { ...bodyFor(route.method), cookie: dev.cookie })
        expect(withCookie.status, `${route.method} ${route.path} with the cookie`).not.toBe(401)
      }
    }))
})
