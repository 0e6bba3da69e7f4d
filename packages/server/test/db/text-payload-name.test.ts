import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { migrate } from "../../src/db/client.js"
import { TestDatabaseBefore } from "../support/database.js"

layer(TestDatabaseBefore("0026_text_payload_name"))("migration 0026 (text payload name)", (it) => {
  it.effect("stored text messages carry their words as payload.text: WhatsApp's body renamed, outbound texts given theirs; other rows unchanged", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [account] = yield* sql<{ id: number }>`insert into developer_accounts (name) values ('txt') returning id`
      const [chat] = yield* sql<{ id: number }>`insert into platform_channels (developer_account_id, type) values (${account!.id}, 'chat') returning id`
      const message = (direction: string, source: string, type: string, text: string, payload: unknown) =>
        sql<{ id: number }>`insert into messages (developer_account_id, platform_channel_id, direction, source, type, text, payload)
          values (${account!.id}, ${chat!.id}, ${direction}, ${source}, ${type}, ${text}, ${JSON.stringify(payload)}::jsonb)
          returning id`.pipe(Effect.map((rows) => rows[0]!.id))
      const ids = [
        yield* message("inbound", "contact", "text", "hi", { body: "hi", context: { id: "wamid.X" } }),
        yield* message("outbound", "app_echo", "text", "echo", { body: "echo" }),
        yield* message("outbound", "api", "text", "sent", { preview_url: true }),
        yield* message("outbound", "api", "text", "bare", {}),
        yield* message("inbound", "contact", "text", "ig", { text: "ig" }),
        yield* message("inbound", "contact", "image", "cap", { id: "m1", caption: "cap" })
      ]

      yield* migrate

      const rows = yield* sql<{ payload: unknown }>`select payload from messages where id = any(${ids}::bigint[]) order by id`
      expect(rows.map((r) => r.payload)).toEqual([
        { text: "hi", context: { id: "wamid.X" } },
        { text: "echo" },
        { text: "sent", preview_url: true },
        { text: "bare" },
        { text: "ig" },
        { id: "m1", caption: "cap" }
      ])
    }))
})
