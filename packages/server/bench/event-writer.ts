/**
 * The delivery benchmark's event writer, in its own process as the API processes
 * that write events are in production: one JSON command per stdin line,
 * `{"n": 500, "offset": 0, "conversations": 1000 | null, "ids": false}`, inserts `n`
 * message.sent events in one statement, announces them as writers do
 * (DeliveryWakeup.eventsWritten: a NOTIFY after the commit) and answers one line,
 * `{"committedAt": <ms>, "ids": [...] | null}`. argv: database URL, account id,
 * channel id. Prints "ready" once connected.
 */
import { Effect, Layer, Runtime } from "effect"
import { createInterface } from "node:readline"
import { SqlClient } from "@effect/sql"
import { parseDatabaseUrl, pgLayer } from "../src/db/client.js"
import { DeliveryWakeup } from "../src/delivery/wakeup.js"
import { newEventId } from "../src/outbox/events.js"
import { benchEnvelope } from "./bench-event.js"

interface Command {
  readonly n: number
  readonly offset: number
  readonly conversations: number | null
  readonly ids: boolean
}

const [url, accountArg, channelArg] = process.argv.slice(2)
const account = Number(accountArg)
const channel = Number(channelArg)

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeup = yield* DeliveryWakeup

  const write = (command: Command) =>
    Effect.gen(function*() {
      const ids: Array<string> = []
      const rows: Array<{ id: string; peer: string | null; env: object }> = []
      const occurred = new Date().toISOString()
      for (let k = 0; k < command.n; k++) {
        const i = command.offset + k
        const id = newEventId()
        const peer = command.conversations === null ? null : `conv-${i % command.conversations}`
        ids.push(id)
        rows.push({ id, peer, env: benchEnvelope(i, id, peer, account, channel, occurred) })
      }
      // One JSON document per batch: pg would escape text[] parameters element by element.
      yield* sql`insert into events (event_id, developer_account_id, platform_channel_id, event_type, conversation_peer, envelope)
        select id, ${account}, ${channel}, 'message.sent', peer, env
        from json_to_recordset(${JSON.stringify(rows)}::json) as u(id text, peer text, env json)`
      const committedAt = Date.now()
      yield* wakeup.eventsWritten
      return { committedAt, ids: command.ids ? ids : null }
    })

  const runtime = yield* Effect.runtime<SqlClient.SqlClient | DeliveryWakeup>()
  process.stdout.write("ready\n")
  yield* Effect.promise(async () => {
    for await (const line of createInterface({ input: process.stdin })) {
      const reply = await Runtime.runPromise(runtime)(write(JSON.parse(line) as Command))
      process.stdout.write(`${JSON.stringify(reply)}\n`)
    }
  })
})

Effect.runPromise(
  program.pipe(
    Effect.provide(DeliveryWakeup.Default.pipe(Layer.provideMerge(pgLayer(parseDatabaseUrl(url!), 2)))),
    Effect.scoped,
    Effect.orDie
  )
).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
