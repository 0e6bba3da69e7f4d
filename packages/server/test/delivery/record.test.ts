import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { PgPool } from "../../src/db/client.js"
import { AutoPause } from "../../src/delivery/auto-pause.js"
import { type ClaimedRow } from "../../src/delivery/claims.js"
import { EngineSql } from "../../src/delivery/engine-sql.js"
import { makeRecord } from "../../src/delivery/record.js"
import { createAccount, createSubscription, deliveriesOf, TestEngine } from "../support/delivery.js"

const lease = new Date("2025-05-01T00:00:00.000Z")
const at = new Date("2025-05-01T00:00:01.000Z")

/** Two rows of one conversation: the first in flight under `lease`, the second pending and due. */
const conversation = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { accountId, channelId } = yield* createAccount()
  const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook" })
  const rows = yield* sql<{ id: number }>`
    insert into webhook_deliveries (subscription_id, developer_account_id, platform_channel_id, event_id, event_type,
                                    conversation_peer, envelope, status, delivering_since, next_retry_at)
    values (${sub.id}, ${accountId}, ${channelId}, 'evt_1', 'message.sent', 'peer', '{}'::jsonb, 'delivering', ${lease}, ${lease}),
           (${sub.id}, ${accountId}, ${channelId}, 'evt_2', 'message.sent', 'peer', '{}'::jsonb, 'pending', null, ${lease})
    returning id`.pipe(Effect.orDie)
  const first = { id: rows[0]!.id, subscription_id: sub.id, conversation_peer: "peer" } as ClaimedRow
  return { sub, first, second: rows[1]!.id }
})

const answered = (status: number) => ({ _tag: "Answered" as const, status, snippet: "ok", latencyMs: 3 })

layer(TestEngine)("recording outcomes", (it) => {
  it.effect("a delivered row's record claims the next row of its conversation under the record's lease", () =>
    Effect.gen(function*() {
      const record = makeRecord(yield* EngineSql, yield* AutoPause)
      const { first, second, sub } = yield* conversation
      const next = yield* record([{ row: first, outcome: answered(200), claimedAt: lease }], 1, at)
      expect(next.map((r) => r.id)).toEqual([second])
      const rows = yield* deliveriesOf(sub.id)
      expect(rows.map((r) => r.status)).toEqual(["delivered", "delivering"])
      const [held] = yield* (yield* SqlClient.SqlClient)<{ delivering_since: Date }>`
        select delivering_since from webhook_deliveries where id = ${second}`
      expect(held!.delivering_since.getTime()).toBe(at.getTime())
    }))

  it.effect("an outcome under a lease the row no longer holds is not recorded; the batch's others are", () =>
    Effect.gen(function*() {
      const record = makeRecord(yield* EngineSql, yield* AutoPause)
      const stale = yield* conversation
      const current = yield* conversation
      // The row was claimed again after `earlier` expired: that POST's outcome comes too late.
      const earlier = new Date(lease.getTime() - 60_000)
      yield* record([
        { row: stale.first, outcome: answered(200), claimedAt: earlier },
        { row: current.first, outcome: answered(200), claimedAt: lease }
      ], 0, at)
      const [held] = yield* deliveriesOf(stale.sub.id)
      expect(held).toMatchObject({ status: "delivering", attempts: 0, delivered_at: null })
      const [done] = yield* deliveriesOf(current.sub.id)
      expect(done).toMatchObject({ status: "delivered", attempts: 1 })
      expect(done!.delivered_at!.getTime()).toBe(at.getTime())
    }))

  it.effect("a failed row keeps its conversation waiting, and no turn is taken without a slot", () =>
    Effect.gen(function*() {
      const record = makeRecord(yield* EngineSql, yield* AutoPause)
      const failing = yield* conversation
      expect(yield* record([{ row: failing.first, outcome: answered(503), claimedAt: lease }], 1, at)).toEqual([])
      expect((yield* deliveriesOf(failing.sub.id)).map((r) => r.status)).toEqual(["pending", "pending"])

      const slotless = yield* conversation
      expect(yield* record([{ row: slotless.first, outcome: answered(200), claimedAt: lease }], 0, at)).toEqual([])
      expect((yield* deliveriesOf(slotless.sub.id)).map((r) => r.status)).toEqual(["delivered", "pending"])
    }))

  it.effect("a next row a claimer holds is waited for and left to it (real PostgreSQL)", () =>
    Effect.gen(function*() {
      const pool = yield* Effect.serviceOption(PgPool)
      if (pool._tag === "None" || pool.value.embedded) return // one session: no concurrent claimer
      const record = makeRecord(yield* EngineSql, yield* AutoPause)
      const { first, second, sub } = yield* conversation
      // Another claimer's transaction takes the row first and has not committed yet.
      const claimer = yield* Effect.promise(() => pool.value.pool.connect())
      yield* Effect.promise(() => claimer.query("begin"))
      yield* Effect.promise(() =>
        claimer.query("update webhook_deliveries set status = 'delivering', delivering_since = now() where id = $1", [second])
      )
      const recording = yield* Effect.fork(record([{ row: first, outcome: answered(200), claimedAt: lease }], 1, at))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200))) // real time: the record waits on the lock
      yield* Effect.promise(() => claimer.query("commit"))
      claimer.release()
      expect(yield* Fiber.join(recording)).toEqual([])
      const rows = yield* deliveriesOf(sub.id)
      expect(rows.map((r) => r.status)).toEqual(["delivered", "delivering"])
    }))
})
