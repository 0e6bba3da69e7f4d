import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { PgPool, poolQuery, scopedPool } from "../../src/db/client.js"
import { TestDatabase } from "../support/database.js"

describe("scopedPool", () => {
  it.scoped("opens connections to the same database with the given settings, the shared pool's untouched (none on PGlite)", () =>
    Effect.gen(function*() {
      const db = yield* PgPool
      const own = yield* scopedPool(db, { max: 2, settings: { enable_seqscan: "off", work_mem: "2MB" } })
      const [shared] = yield* poolQuery<{ seq: string; db: string }>(db, "probe_shared",
        "select current_setting('enable_seqscan') as seq, current_database() as db", [])
      expect(shared!.seq).toBe("on")
      if (db.embedded) {
        // One backend session serves every client of PGlite: no connection can have settings of its own.
        expect(Option.isNone(own)).toBe(true)
        return
      }
      const [setting] = yield* poolQuery<{ seq: string; mem: string; db: string }>(Option.getOrThrow(own), "probe_settings",
        "select current_setting('enable_seqscan') as seq, current_setting('work_mem') as mem, current_database() as db", [])
      expect(setting).toEqual({ seq: "off", mem: "2MB", db: shared!.db })
    }).pipe(Effect.provide(Layer.orDie(TestDatabase))))
})
