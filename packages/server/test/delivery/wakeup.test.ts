import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { DeliveryWakeup } from "../../src/delivery/wakeup.js"
import { TestDatabase } from "../support/database.js"

/** A DeliveryWakeup of its own, as another process over the same database has. */
const processWakeup = Effect.map(Layer.build(DeliveryWakeup.Default), (context) => Context.get(context, DeliveryWakeup))

/** Whether a pulse taken earlier has fired by now. */
const fired = (pulse: Promise<void>) =>
  Effect.promise(() =>
    Promise.race([pulse.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))])
  )

/** Real time: LISTEN and NOTIFY travel through the server. */
const realDelay = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

layer(TestDatabase)("cross-process wake-ups", (it) => {
  it.scoped("a NOTIFY wakes the other processes' dispatchers, not its own sender a second time (real PostgreSQL)", () =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      const [server] = yield* pg<{ version: string }>`select version() as version`
      if (/PGlite/i.test(server!.version)) return // one process: in-process pulses only
      const a = yield* processWakeup
      const b = yield* processWakeup
      yield* realDelay(300) // both LISTENs in place

      const aBefore = a.deliveries.current
      const bBefore = b.deliveries.current
      yield* a.deliveriesAnnounced
      yield* Effect.promise(() => bBefore)
      // b heard it; a, which sent it, ignores its own echo.
      yield* realDelay(200)
      expect(yield* fired(aBefore)).toBe(false)

      yield* b.deliveriesAnnounced
      yield* Effect.promise(() => aBefore)
    }), { timeout: 20_000 })

  it.scoped("deliveriesWritten wakes this process at once and the others through the server", () =>
    Effect.gen(function*() {
      const a = yield* processWakeup
      const b = yield* processWakeup
      const pg = yield* PgClient.PgClient
      const [server] = yield* pg<{ version: string }>`select version() as version`
      const crossProcess = !/PGlite/i.test(server!.version)
      if (crossProcess) yield* realDelay(300)
      const aBefore = a.deliveries.current
      const bBefore = b.deliveries.current
      yield* a.deliveriesWritten
      expect(yield* fired(aBefore)).toBe(true)
      if (crossProcess) yield* Effect.promise(() => bBefore)
    }), { timeout: 20_000 })
})
