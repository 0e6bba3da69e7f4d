/**
 * `npm run bench:subscription-delete`: how long deleting a subscription takes with
 * BENCH_DELIVERIES (20000) deliveries of its own, next to as many of a sibling
 * subscription of the same account, a redelivery among them (DELETE
 * /platform/v1/webhooks/subscriptions/{id} runs the same statement). Migration 0009's
 * index on redelivery_of made it linear: the key's `on delete set null` looked for
 * each deleted row's redeliveries with a scan of the whole table.
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created beside it and dropped).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { parseDatabaseUrl } from "../src/db/client.js"
import { databaseUrl, runOnScratchDatabase } from "./scratch-database.js"

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000)

const main = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [account] = yield* sql<{ id: number }>`insert into developer_accounts (name) values ('bench') returning id`
  const subscription = (url: string) =>
    sql<{ id: number }>`insert into webhook_subscriptions (developer_account_id, target_url, secret_encrypted)
      values (${account!.id}, ${url}, '\\x00') returning id`.pipe(Effect.map(([row]) => row!.id))
  const gone = yield* subscription("https://gone.example/hook")
  const kept = yield* subscription("https://kept.example/hook")
  for (const id of [gone, kept]) {
    yield* sql`insert into webhook_deliveries (subscription_id, developer_account_id, event_id, event_type, envelope, status)
      select ${id}, ${account!.id}, 'evt_' || ${id} || '_' || g, 'message.sent', '{}'::jsonb, 'delivered'
      from generate_series(1, ${DELIVERIES}) g`
  }
  yield* sql`insert into webhook_deliveries (subscription_id, developer_account_id, event_id, event_type, envelope, redelivery_of)
    select subscription_id, developer_account_id, event_id, event_type, envelope, id
    from webhook_deliveries where subscription_id = ${gone} order by id limit 1`
  yield* sql`analyze webhook_deliveries`
  const started = performance.now()
  yield* sql`delete from webhook_subscriptions where id = ${gone}`
  const ms = performance.now() - started
  const [left] = yield* sql<{ gone: number; kept: number }>`
    select count(*) filter (where subscription_id = ${gone})::int as gone,
           count(*) filter (where subscription_id = ${kept})::int as kept
    from webhook_deliveries`
  console.log(`bench:subscription-delete (Postgres ${parseDatabaseUrl(databaseUrl).host})`)
  console.log(`deleted a subscription with ${DELIVERIES + 1} deliveries (${2 * DELIVERIES + 1} in the table) in ` +
    `${Math.round(ms)} ms; left: ${left!.gone} of it, ${left!.kept} of its sibling`)
})

runOnScratchDatabase("bench_subscription_delete", main)
