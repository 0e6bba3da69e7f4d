import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Schedule, TestServices } from "effect"
import { AuthTestServer, connectChat, type Dev, type Reply, request, signup } from "../auth/support.js"

const D = "/platform/dashboard"

/*
 * The channel cap is checked under a lock of the account row. Each case connects a
 * channel in a transaction that holds that lock (another connect, in effect), sends
 * the request while it is held, waits until the request waits for the lock (on
 * PostgreSQL; embedded PGlite runs one transaction at a time, so there the request
 * simply starts after the commit and the transaction commits at once: waiting there
 * would only hold the request's connection checkout toward its bound), then commits:
 * the request must count that channel.
 */
const locksAreVisible = Boolean(process.env.DATABASE_URL)

const whileAnotherConnectHoldsTheAccount = <R>(dev: Dev, send: Effect.Effect<Reply, never, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const phone = String(200000000000000 + Math.floor(Math.random() * 1e12))
    // pg_stat_activity is read once per transaction unless its snapshot is cleared.
    const waiting = sql`select pg_stat_clear_snapshot()`.pipe(
      Effect.zipRight(sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike '%developer_accounts%'`),
      Effect.map(([row]) => row?.n ?? 0),
      Effect.orElseSucceed(() => 0)
    )
    const fiber = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`select id from developer_accounts where id = ${dev.accountId} for update`
      yield* sql`
        insert into platform_channels (developer_account_id, type, phone_number_id, waba_id)
        values (${dev.accountId}, 'chat', ${phone}, ${"WABA" + phone})`
      const fiber = yield* Effect.fork(send)
      // Real time: the request's wait is real, not the test clock's.
      if (locksAreVisible) {
        yield* waiting.pipe(
        Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (n) => n > 0 }),
        Effect.timeoutOption("3 seconds"),
        TestServices.provideLive
      )
      }
      return fiber
    }))
    return yield* Fiber.join(fiber)
  })

const connectedChannels = (dev: Dev) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`
      select count(*)::int as n from platform_channels
      where developer_account_id = ${dev.accountId} and status = 'connected'`.pipe(Effect.map(([row]) => row!.n)))

layer(AuthTestServer(), { timeout: 60_000 })("plan channel cap under concurrency", (it) => {
  it.effect("a connect that waited for another connect of the free plan's one channel is 403 plan_forbidden", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      const reply = yield* whileAnotherConnectHoldsTheAccount(dev, connectChat(dev))
      expect(reply.status).toBe(403)
      expect(reply.body.detail.code).toBe("plan_forbidden")
      expect(yield* connectedChannels(dev)).toBe(1)
    }))

  it.effect("a downgrade to free that waited for a second channel's connect is 409, and the plan stays", () =>
    Effect.gen(function*() {
      const dev = yield* signup()
      expect((yield* request("POST", `${D}/billing/plan`, { cookie: dev.cookie, body: { plan: "lite" } })).status).toBe(200)
      expect((yield* connectChat(dev)).status).toBe(201)
      const reply = yield* whileAnotherConnectHoldsTheAccount(
        dev,
        request("POST", `${D}/billing/plan`, { cookie: dev.cookie, body: { plan: "free" } })
      )
      expect(reply.status).toBe(409)
      expect(reply.body.detail.code).toBe("conflict")
      const billing = yield* request("GET", `${D}/billing`, { cookie: dev.cookie })
      expect(billing.body).toMatchObject({ plan: "lite", usage: { channels: 2 } })
    }))
})
