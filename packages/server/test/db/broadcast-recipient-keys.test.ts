import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { migrate } from "../../src/db/client.js"
import { TestDatabaseBefore } from "../support/database.js"

layer(TestDatabaseBefore("0019_broadcast_recipient_keys"))("migration 0019 (broadcast recipient keys)", (it) => {
  it.effect("keys the recipients loaded before it: digits on chat, exact text on social; a number repeated in another format keeps its row under a key of its own, and loading that number again is a duplicate", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [account] = yield* sql<{ id: number }>`insert into developer_accounts (name) values ('keys') returning id`
      const [chat] = yield* sql<{ id: number }>`insert into platform_channels (developer_account_id, type) values (${account!.id}, 'chat') returning id`
      const [social] = yield* sql<{ id: number }>`insert into platform_channels (developer_account_id, type) values (${account!.id}, 'social') returning id`
      const broadcast = (channel: number) =>
        sql<{ id: number }>`insert into broadcasts (developer_account_id, platform_channel_id, name, template_name, language_code)
          values (${account!.id}, ${channel}, 'b', 't', 'en_US') returning id`.pipe(Effect.map((rows) => rows[0]!.id))
      const onChat = yield* broadcast(chat!.id)
      const onSocial = yield* broadcast(social!.id)
      const load = (id: number, tos: ReadonlyArray<string>) =>
        Effect.forEach(tos, (to) => sql`insert into broadcast_recipients (broadcast_id, "to") values (${id}, ${to})`, { discard: true })
      yield* load(onChat, ["+1 555 123 4567", "15551234567", "+15550000001", "+15551234567", "no digits"])
      yield* load(onSocial, ["+1 555 123 4567", "15551234567"])

      yield* migrate

      const keys = (id: number) =>
        sql<{ id: number; to: string; to_key: string }>`select id, "to", to_key from broadcast_recipients
          where broadcast_id = ${id} order by id`
      const chatRows = yield* keys(onChat)
      expect(chatRows.map((r) => [r.to, r.to_key])).toEqual([
        ["+1 555 123 4567", "15551234567"],
        ["15551234567", `#${chatRows[1]!.id}`],
        ["+15550000001", "15550000001"],
        ["+15551234567", `#${chatRows[3]!.id}`],
        ["no digits", "no digits"]
      ])
      expect((yield* keys(onSocial)).map((r) => [r.to, r.to_key])).toEqual([
        ["+1 555 123 4567", "+1 555 123 4567"],
        ["15551234567", "15551234567"]
      ])
      const again = yield* sql`insert into broadcast_recipients (broadcast_id, "to", to_key)
        values (${onChat}, '1-555-123-4567', '15551234567') on conflict (broadcast_id, to_key) do nothing returning id`
      expect(again).toHaveLength(0)
      const missing = yield* Effect.either(sql`insert into broadcast_recipients (broadcast_id, "to") values (${onChat}, '15559999999')`)
      expect(missing._tag).toBe("Left")
    }))
})
