import { HttpApi } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { DASHBOARD_PREFIX, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { AuthTestServer, baseUrl, request, signup } from "../auth/support.js"

/** Every `/platform/dashboard/*` route of the HttpApi, its path parameters filled with 1. */
const dashboardRoutes = (() => {
  const out: Array<readonly [string, string]> = []
  HttpApi.reflect(PlatformApi as unknown as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (endpoint.path.startsWith(DASHBOARD_PREFIX)) out.push([endpoint.method, endpoint.path.replace(/:\w+/g, "1")])
    }
  })
  return out
})()

/** A body each POST decodes, so that the query string is what the route refuses (nothing is acted on). */
const BODIES: Record<string, unknown> = {
  "/platform/dashboard/signup": { email: "dq-body@example.com", password: "correct horse", name: "Ada" },
  "/platform/dashboard/login": { email: "dq-body@example.com", password: "correct horse" },
  "/platform/dashboard/billing/plan": { plan: "lite" },
  "/platform/dashboard/api-keys": { name: "k" },
  "/platform/dashboard/team": { email: "dq-team@example.com", role: "developer" },
  "/platform/dashboard/channels/connect/chat": { code: "c", phone_number_id: "106540352242922", waba_id: "102290129340398" },
  "/platform/dashboard/channels/connect/social": { code: "c", redirect_uri: "https://example.com/oauth" },
  "/platform/dashboard/sandbox/inbound": { channel_id: 1, from: "15551234567", text: "hi" }
}

layer(AuthTestServer(), { timeout: 60_000 })("dashboard query parameters", (it) => {
  it.effect("the HttpApi has dashboard routes to check", () => Effect.sync(() => expect(dashboardRoutes.length).toBeGreaterThan(15)))

  it.effect.each(dashboardRoutes)("%s %s with a query parameter it does not take is 422 extra_forbidden naming it, as on /platform/v1", ([method, path]) =>
    Effect.gen(function*() {
      const dev = yield* signup("dq")
      const origin = yield* baseUrl
      const reply = yield* request(method, `${path}?verbose=1`, {
        cookie: dev.cookie,
        headers: { origin },
        ...(method === "GET" || method === "DELETE" ? {} : { body: BODIES[path] ?? {} })
      })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ["query", "verbose"], type: "extra_forbidden", input: "1" })])
    }))
})
