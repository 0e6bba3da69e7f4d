import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { PLAN_LIMITS } from "@platform/shared"
import { Effect, Either } from "effect"
import { Usage } from "../../src/accounts/usage.js"
import { currentPeriod } from "../../src/db/usage-period.js"
import { AuthTestServer, request, signup } from "../auth/support.js"

layer(AuthTestServer(), { timeout: 60_000 })("plans and usage", (it) => {
  it.effect.each([
    { plan: "free", metric: "template_messages", limit: PLAN_LIMITS.free.template_messages_per_month },
    { plan: "lite", metric: "broadcasts", limit: PLAN_LIMITS.lite.broadcasts_per_month },
    { plan: "free", metric: "broadcasts", limit: 0 }
  ] as const)("on $plan, concurrent consumers of $metric get exactly $limit units and never overshoot", ({ limit, metric, plan }) =>
    Effect.gen(function*() {
      const dev = yield* signup()
      yield* request("POST", "/platform/dashboard/billing/plan", { cookie: dev.cookie, body: { plan } })
      const usage = yield* Usage
      const attempts = limit + 30
      const results = yield* Effect.all(
        Array.from({ length: attempts }, () => Effect.either(usage.consume(dev.accountId, metric))),
        { concurrency: 16 }
      )
      expect(results.filter(Either.isRight).length).toBe(limit)
      const refusals = results.filter(Either.isLeft).map((r) => r.left)
      expect(refusals.length).toBe(30)
      expect(refusals[0]).toMatchObject({ _tag: "QuotaExceeded", metric, limit, plan })
      const snapshot = yield* usage.snapshot(dev.accountId)
      expect(snapshot[metric]).toBe(limit)
    }))

  it.effect("a batch that would cross the limit is refused whole; refund gives units back", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const usage = yield* Usage
      expect((yield* usage.consume(dev.accountId, "inbound_messages", 990)).used).toBe(990)
      expect(Either.isLeft(yield* Effect.either(usage.consume(dev.accountId, "inbound_messages", 11)))).toBe(true)
      expect((yield* usage.consume(dev.accountId, "inbound_messages", 10)).used).toBe(1000)
      yield* usage.refund(dev.accountId, "inbound_messages", 5)
      expect((yield* usage.snapshot(dev.accountId)).inbound_messages).toBe(995)
      const billing = yield* request("GET", "/platform/dashboard/billing", { cookie: dev.cookie })
      expect(billing.body.usage.inbound_messages).toBe(995)
    }))

  it.effect("counters are per calendar month (UTC): last month's usage does not count", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        insert into usage_counters (developer_account_id, period, metric, used)
        values (${dev.accountId}, (${currentPeriod()}::date - interval '1 month')::date, 'template_messages', 250)`
      const usage = yield* Usage
      expect((yield* usage.consume(dev.accountId, "template_messages")).used).toBe(1)
      expect(currentPeriod(new Date("2024-03-31T23:59:59Z"))).toBe("2024-03-01")
      expect(currentPeriod(new Date("2024-04-01T00:00:00Z"))).toBe("2024-04-01")
    }))
})
