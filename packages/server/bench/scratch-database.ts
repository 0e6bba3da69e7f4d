import { Effect, Layer } from "effect"
import { migrate, parseDatabaseUrl, pgLayer } from "../src/db/client.js"
import { query } from "./support.js"

/** The database server a bench runs on: DATABASE_URL, by default the local test database. */
export const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/**
 * Runs `main` on a scratch database created beside DATABASE_URL's, migrated, and
 * dropped afterwards, then exits the process (1 on failure).
 */
export const runOnScratchDatabase = <E>(
  prefix: string,
  main: Effect.Effect<void, E, Layer.Layer.Success<ReturnType<typeof pgLayer>>>
) => {
  const program = Effect.gen(function*() {
    const scratch = `${prefix}_${Date.now().toString(36)}`
    yield* Effect.acquireRelease(
      Effect.promise(() => query(databaseUrl, `create database ${scratch}`)),
      () => Effect.promise(() => query(databaseUrl, `drop database if exists ${scratch} with (force)`).catch(() => undefined))
    )
    const Database = Layer.effectDiscard(migrate).pipe(
      Layer.provideMerge(pgLayer({ ...parseDatabaseUrl(databaseUrl), database: scratch }, 2))
    )
    yield* main.pipe(Effect.provide(Database))
  }).pipe(Effect.scoped)
  Effect.runPromise(program).then(
    () => process.exit(0),
    (error) => {
      console.error(error)
      process.exit(1)
    }
  )
}
