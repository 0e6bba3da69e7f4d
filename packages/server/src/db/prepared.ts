import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import { Effect, Option } from "effect"
import { type PgPool, poolQuery } from "./client.js"

/** The most distinct statement texts named per process; any beyond run unnamed (a text built from values is a defect). */
const MAX_NAMES = 64

/** One name per text for the whole process: a connection of the shared pool knows each name once, whoever prepared it. */
const names = new Map<string, string>()
const nameOf = (text: string) => {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_NAMES) return known
  const name = `hot_${names.size}`
  names.set(text, name)
  return name
}

/**
 * Runs @effect/sql statements as NAMED prepared statements on the shared pool
 * (`poolQuery`), for the hot ones built with `sql` fragments: unnamed, every run
 * parses, analyzes and plans the whole text again, which for a send's record
 * (one statement of seven CTEs) cost Postgres more than executing it. Each
 * distinct text gets a name on first use; each connection then prepares it once.
 * The statement runs as written inside a transaction (its connection is the
 * transaction's), on embedded PGlite (no named statements) or without a pool.
 */
export const makePrepared = (pool: Option.Option<PgPool["Type"]>) =>
  <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError.SqlError> =>
    Option.isNone(pool) || !pool.value.namedStatements
      ? statement
      : Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
        if (Option.isSome(transaction)) return statement
        const [text, params] = statement.compile()
        const name = nameOf(text)
        return name === undefined ? statement : poolQuery<A>(pool.value, name, text, params)
      })
