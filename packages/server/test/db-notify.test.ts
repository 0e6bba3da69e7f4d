import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { pgNotify } from "../src/db/client.js"
import { TestDatabase } from "./support/database.js"

layer(TestDatabase)("pgNotify", (it) => {
  it.effect("is a valid statement (the library's NOTIFY with a bind parameter is not)", () =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      yield* pgNotify(pg, "platform_probe", "1")
      const refused = yield* Effect.either(pg.notify("platform_probe", "1"))
      expect(refused._tag).toBe("Left")
    }))

  it.effect("reaches a LISTENer on another connection (real PostgreSQL)", () =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      const [server] = yield* pg<{ version: string }>`select version() as version`
      if (/PGlite/i.test(server!.version)) {
        // Embedded PGlite is one process: cross-process wake-ups are not used there.
        return
      }
      const received = yield* pg.listen("platform_probe").pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      // Real time (not the TestClock) for the LISTEN to be in place.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      yield* pgNotify(pg, "platform_probe", "hello")
      const payloads = yield* Fiber.join(received)
      expect(Chunk.toReadonlyArray(payloads)).toEqual(["hello"])
    }), { timeout: 20_000 })
})
