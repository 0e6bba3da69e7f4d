/**
 * `npm run bench:deliveries-list`: `GET /platform/v1/webhooks/deliveries` filtered
 * by a rare subscription, by `errors_only` and by `event_type`, on an account with
 * BENCH_DELIVERIES (200000) deliveries, next to the unfiltered first page (the
 * Deliveries service as the route calls it). The rare subscription's 50 rows and
 * the 50 failed rows are the account's oldest, so a filter that walks the
 * account's index reads every row before finding them.
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created beside it and dropped), BENCH_DELIVERIES, BENCH_RUNS (20).
 */
import { SqlClient } from "@effect/sql"
import { DeliveryListQuery } from "@platform/shared"
import { Effect, Layer, Schema } from "effect"
import { parseDatabaseUrl } from "../src/db/client.js"
import { DeliveryWakeup } from "../src/delivery/wakeup.js"
import { Deliveries } from "../src/webhooks/deliveries.js"
import { databaseUrl, runOnScratchDatabase } from "./scratch-database.js"
import { median } from "./support.js"

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 200_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 20)
const RARE = 50

const main = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const deliveries = yield* Deliveries
  const [account] = yield* sql<{ id: number }>`insert into developer_accounts (name) values ('bench') returning id`
  const subscription = (url: string) =>
    sql<{ id: number }>`insert into webhook_subscriptions (developer_account_id, target_url, secret_encrypted)
      values (${account!.id}, ${url}, '\\x00') returning id`.pipe(Effect.map(([row]) => row!.id))
  const rare = yield* subscription("https://rare.example/hook")
  const busy = yield* subscription("https://busy.example/hook")
  const insert = (subscriptionId: number, n: number, eventType: string, status: string) =>
    sql`insert into webhook_deliveries (subscription_id, developer_account_id, event_id, event_type, status)
      select ${subscriptionId}, ${account!.id}, 'evt_' || ${subscriptionId} || '_' || ${status} || '_' || g,
             ${eventType}, ${status}
      from generate_series(1, ${n}) g`
  yield* insert(rare, RARE, "channel.connected", "delivered")
  yield* insert(busy, RARE, "message.sent", "failed")
  yield* insert(busy, DELIVERIES, "message.sent", "delivered")
  yield* sql`analyze webhook_deliveries`

  const decode = Schema.decodeUnknownSync(DeliveryListQuery)
  const cases: ReadonlyArray<readonly [string, Record<string, string>]> = [
    ["first page, no filter", {}],
    [`subscription_id (${RARE} of ${DELIVERIES + 2 * RARE})`, { subscription_id: String(rare) }],
    [`errors_only (${RARE} failed)`, { errors_only: "true" }],
    [`event_type (${RARE} channel.connected)`, { event_type: "channel.connected" }]
  ]
  console.log(`bench:deliveries-list (Postgres ${parseDatabaseUrl(databaseUrl).host}, ${RUNS} runs, median)`)
  for (const [label, params] of cases) {
    const q = decode(params)
    const times: Array<number> = []
    let rows = 0
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now()
      const page = yield* deliveries.list(account!.id, q)
      times.push(performance.now() - started)
      rows = page.data.length
    }
    console.log(`${label.padEnd(44)} ${median(times).toFixed(2).padStart(9)} ms  (${rows} rows)`)
  }
})

runOnScratchDatabase(
  "bench_deliveries_list",
  main.pipe(Effect.provide(Deliveries.Default.pipe(Layer.provide(DeliveryWakeup.Default))))
)
