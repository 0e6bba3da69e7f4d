import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { EventEmitter } from "node:events"
import type pg from "pg"
import { dedicatedSession, type PgPool } from "../../src/db/client.js"

/** A pool handing out fake connections that answer with `answer`; it records connects and releases. */
const fakePool = (answer: (n: number, config: { name?: string; text: string }) => Error | undefined) => {
  const log: Array<string> = []
  const clients: Array<EventEmitter> = []
  let connections = 0
  let queries = 0
  const pool = {
    connect: (cb: (err: Error | undefined, client: pg.PoolClient) => void) => {
      const id = ++connections
      log.push(`connect ${id}`)
      const client = Object.assign(new EventEmitter(), {
        query: (config: { name?: string; text: string }, done: (err: Error | undefined, result?: { rows: Array<unknown> }) => void) => {
          log.push(`query ${id} ${config.name ?? "(unnamed)"}`)
          const err = answer(++queries, config)
          setImmediate(() => (err ? done(err) : done(undefined, { rows: [{ on: id }] })))
        },
        release: (err?: Error | boolean) => log.push(`release ${id}${err ? " destroyed" : ""}`)
      })
      clients.push(client)
      setImmediate(() => cb(undefined, client as unknown as pg.PoolClient))
    }
  }
  return { db: { pool: pool as unknown as pg.Pool, config: {}, namedStatements: true, embedded: false } satisfies PgPool["Type"], log, clients }
}

const sqlError = (code: string) => Object.assign(new Error("duplicate key"), { code })

describe("dedicatedSession", () => {
  it.effect("keeps one connection across queries and statement errors (SQLSTATE), named statements included", () =>
    Effect.gen(function*() {
      const { db, log } = fakePool((n) => (n === 2 ? sqlError("23505") : undefined))
      const session = dedicatedSession(db)
      expect(yield* session.query("s1", "select 1", [])).toEqual([{ on: 1 }])
      const failed = yield* Effect.exit(session.query("s1", "select 1", []))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* session.query("s1", "select 1", [])).toEqual([{ on: 1 }])
      yield* session.close
      expect(log).toEqual(["connect 1", "query 1 s1", "query 1 s1", "query 1 s1", "release 1"])
    }))

  it.effect("drops a connection that fails (no SQLSTATE) or reports an error, and takes a new one for the next query", () =>
    Effect.gen(function*() {
      const { clients, db, log } = fakePool((n) => (n === 2 ? new Error("Connection terminated unexpectedly") : undefined))
      const session = dedicatedSession(db)
      yield* session.query("s1", "select 1", [])
      const failed = yield* Effect.exit(session.query("s1", "select 1", []))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* session.query("s1", "select 1", [])).toEqual([{ on: 2 }])
      // An idle connection the server ends emits "error": it is dropped, and the next query takes a new one.
      clients[1]!.emit("error", new Error("terminating connection due to administrator command"))
      expect(yield* session.query("s1", "select 1", [])).toEqual([{ on: 3 }])
      yield* session.close
      expect(log).toEqual([
        "connect 1", "query 1 s1", "query 1 s1", "release 1 destroyed",
        "connect 2", "query 2 s1", "release 2 destroyed",
        "connect 3", "query 3 s1", "release 3"
      ])
    }))
})
