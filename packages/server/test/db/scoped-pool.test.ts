import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { PgPool, poolQuery, scopedPool } from "../../src/db/client.js"
import { API_BOUNDS, ENGINE_BOUNDS } from "../../src/db/statement-bounds.js"
import { TestDatabase } from "../support/database.js"

describe("scopedPool", () => {
  it.scoped("opens connections to the same database with the given settings and statement bound, the shared pool's untouched (none on PGlite)", () =>
    Effect.gen(function*() {
      const db = yield* PgPool
      const own = yield* scopedPool(db, { max: 2, settings: { enable_seqscan: "off", work_mem: "2MB" }, bounds: ENGINE_BOUNDS })
      const [shared] = yield* poolQuery<{ seq: string; db: string; timeout: string }>(db, "probe_shared",
        "select current_setting('enable_seqscan') as seq, current_database() as db, current_setting('statement_timeout') as timeout", [])
      expect(shared!.seq).toBe("on")
      if (db.embedded) {
        // One backend session serves every client of PGlite: no connection can have settings of its own.
        expect(Option.isNone(own)).toBe(true)
        return
      }
      // The server's own bound on the application's statements, and a longer one on the engine's.
      expect(shared!.timeout).toBe(`${API_BOUNDS.statementMs / 1000}s`)
      const [setting] = yield* poolQuery<{ seq: string; mem: string; db: string; timeout: string }>(Option.getOrThrow(own), "probe_settings",
        "select current_setting('enable_seqscan') as seq, current_setting('work_mem') as mem, current_database() as db, current_setting('statement_timeout') as timeout", [])
      expect(setting).toEqual({ seq: "off", mem: "2MB", db: shared!.db, timeout: `${ENGINE_BOUNDS.statementMs / 1000}s` })
    }).pipe(Effect.provide(Layer.orDie(TestDatabase))))
})
