import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Locks an account's row for the rest of the transaction: what serializes the plan's
 * channel cap (connects and plan changes). Its own statement on purpose: a statement
 * that waits for a row lock keeps the snapshot it started with, so a channel count read
 * in it would miss the channel the transaction it waited for committed; the next
 * statement's snapshot has it.
 */
export const lockAccount = (sql: SqlClient.SqlClient, accountId: number): Effect.Effect<void> =>
  sql`select id from developer_accounts where id = ${accountId} for update`.pipe(Effect.asVoid, Effect.orDie)
