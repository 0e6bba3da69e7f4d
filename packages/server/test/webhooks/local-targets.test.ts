import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createKey, request, signup } from "../auth/support.js"
import { TestServer } from "../support/server.js"

/*
 * Local receivers in local development: with UNSAFE_ALLOW_LOCAL_TARGETS unset, a server on the
 * sandbox upstream outside production (a plain `npm start`) takes http:// and loopback
 * subscription targets; UPSTREAM=meta and NODE_ENV=production refuse them as before, with a
 * 422 that says what to do instead. Private and metadata addresses stay refused everywhere.
 */

const base = "/platform/v1/webhooks/subscriptions"
const unset = { UNSAFE_ALLOW_LOCAL_TARGETS: undefined }
const production = { NODE_ENV: "production", ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"), SESSION_SECRET: "s".repeat(32) }

const developer = Effect.gen(function*() {
  const dev = yield* signup("local-targets")
  return (yield* createKey(dev)).key
})

const subscribe = (key: string, target_url: string) =>
  request("POST", base, { key, body: { target_url, event_types: ["message.received"] } })

const localTargets = ["http://127.0.0.1:3000/webhooks", "http://localhost:3000/webhooks", "https://localhost/hook", "http://[::1]:3000/h"]
const alwaysRefused = [
  ["https://169.254.169.254/latest/meta-data", "cloud metadata"],
  ["https://10.0.0.5/hook", "private address"],
  ["https://db.internal/hook", "internal name"]
] as const

layer(TestServer(unset))("sandbox upstream outside production, UNSAFE_ALLOW_LOCAL_TARGETS unset", (it) => {
  it.effect.each(localTargets)("a subscription to %s is 201", (target) =>
    Effect.gen(function*() {
      const created = yield* subscribe(yield* developer, target)
      expect(created.status, created.text).toBe(201)
      expect(created.body.target_url).toBe(target)
    }))

  it.effect.each(alwaysRefused)("a subscription to %s (%s) is still 422", ([target, why]) =>
    Effect.gen(function*() {
      const refused = yield* subscribe(yield* developer, target)
      expect(refused.status).toBe(422)
      expect(refused.body.detail[0].loc).toEqual(["body", "target_url"])
      expect(refused.body.detail[0].input).toBe(target)
      expect(refused.body.detail[0].msg).toContain(why)
      expect(refused.body.detail[0].msg).not.toContain("platform listen")
    }))
})

layer(TestServer({ ...unset, UNSAFE_ALLOW_LOCAL_TARGETS: "0" }))("sandbox upstream with UNSAFE_ALLOW_LOCAL_TARGETS=0", (it) => {
  it.effect("a loopback target is 422, as with the meta upstream", () =>
    Effect.gen(function*() {
      const refused = yield* subscribe(yield* developer, "http://127.0.0.1:3000/webhooks")
      expect(refused.status).toBe(422)
      expect(refused.body.detail[0].msg).toContain("platform listen --forward-to")
    }))
})

for (const [name, overrides] of [
  ["UPSTREAM=meta", { ...unset, UPSTREAM: "meta", META_GRAPH_URL: "http://127.0.0.1:9" }],
  ["NODE_ENV=production", { ...unset, ...production }]
] as const) {
  layer(TestServer(overrides))(`${name}, UNSAFE_ALLOW_LOCAL_TARGETS unset`, (it) => {
    it.effect.each([
      ["http://127.0.0.1:3000/webhooks", "target URL must use https (http is not allowed)"],
      ["http://example.com/webhooks", "target URL must use https (http is not allowed)"],
      ["https://localhost/hook", "target hostname localhost is a loopback name"],
      ["https://127.0.0.1/hook", "target is a loopback address (127.0.0.1)"],
      ["https://receiver/hook", "target hostname receiver is a single-label (intranet) name"]
    ])("a subscription to %s is 422 saying why and what to do instead", ([target, reason]) =>
      Effect.gen(function*() {
        const refused = yield* subscribe(yield* developer, target)
        expect(refused.status).toBe(422)
        expect(refused.body.detail).toHaveLength(1)
        const issue = refused.body.detail[0]
        expect(issue.loc).toEqual(["body", "target_url"])
        expect(issue.msg.startsWith(`${reason}. For a receiver on your machine, run \`platform listen --forward-to <its URL>\``)).toBe(true)
        expect(issue.msg).toContain("public https URL (a tunnel)")
        expect(issue.msg).toContain("accepted only with the sandbox upstream outside production")
      }))

    it.effect.each(alwaysRefused)("a subscription to %s (%s) is 422 without the local advice", ([target, why]) =>
      Effect.gen(function*() {
        const refused = yield* subscribe(yield* developer, target)
        expect(refused.status).toBe(422)
        expect(refused.body.detail[0].input).toBe(target)
        expect(refused.body.detail[0].msg).toContain(why)
        expect(refused.body.detail[0].msg).not.toContain("platform listen")
      }))

    it.effect("an http:// target on a private address is 422 for its scheme, without the local advice (local targets would not admit it either)", () =>
      Effect.gen(function*() {
        const refused = yield* subscribe(yield* developer, "http://10.0.0.5/hook")
        expect(refused.status).toBe(422)
        expect(refused.body.detail[0].msg).toBe("target URL must use https (http is not allowed)")
      }))
  })
}
