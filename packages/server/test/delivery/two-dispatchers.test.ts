import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { AutoPause } from "../../src/delivery/auto-pause.js"
import { Dispatcher } from "../../src/delivery/dispatcher.js"
import { EngineSql } from "../../src/delivery/engine-sql.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { createAccount, createSubscription, TestEngine, writeMessageEvent } from "../support/delivery.js"
import { eventually, startReceiver } from "../support/receiver.js"

/** A second, independent dispatcher (own service instance, caches and connections) over the same database. */
const secondDispatcher = Effect.gen(function*() {
  const context = yield* Layer.build(Dispatcher.Default.pipe(Layer.provide(AutoPause.Default), Layer.provide(EngineSql.Default)))
  return yield* Effect.provide(Dispatcher, context)
})

layer(TestEngine, { excludeTestServices: true })("two dispatchers over one database", (it) => {
  it.scoped("every delivery is POSTed exactly once when the pumps of two dispatchers compete", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(() => ({ status: 200, delayMs: 2 }))
      const { accountId, channelId } = yield* createAccount()
      yield* createSubscription({ accountId, url: receiver.url })
      const total = 400
      for (let i = 0; i < total; i++) {
        yield* writeMessageEvent({ accountId, channelId, peer: i % 3 === 0 ? `peer-${i % 20}` : `solo-${i}` })
      }
      yield* (yield* FanOut).drain()
      const a = yield* Dispatcher
      const b = yield* secondDispatcher
      expect(a).not.toBe(b)
      // As two worker processes run them (sweeps included), claiming 25 rows at a time.
      const pumps = [yield* a.pump({ batchSize: 25 }), yield* b.pump({ batchSize: 25 })]
      yield* receiver.waitFor(total).pipe(Effect.timeout(Duration.seconds(60)))
      yield* Effect.forEach(pumps, (pump) => pump.idle)
      const sql = yield* SqlClient.SqlClient
      yield* eventually(Effect.map(
        sql<{ n: number }>`select count(*)::int as n from webhook_deliveries where status = 'delivered'`.pipe(Effect.orDie),
        ([r]) => r!.n === total ? true : undefined
      ))
      const ids = receiver.received.map((r) => r.headers["x-platform-delivery-id"])
      expect(ids).toHaveLength(total)
      expect(new Set(ids).size).toBe(total)
      const [attempts] = yield* sql<{ n: number; failed: number }>`
        select coalesce(sum(attempts), 0)::int as n, (select count(*) from delivery_attempts)::int as failed
        from delivery_attempt_counts`
      expect(attempts).toEqual({ n: total, failed: 0 })
    }))
})
