import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BroadcastSender } from "../../src/broadcasts/broadcast-sender.js"
import { eventually } from "../support/receiver.js"
import { api, draftWith, freshTo, MessagingTestServer, recipientRows, setup, sql } from "./support.js"

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("events of a broadcast's messages", (it) => {
  it.effect("message.sent, message.delivered and message.read of a broadcast message all say source api (SPEC §6.2); the stored record keeps broadcast", () =>
    Effect.gen(function*() {
      const s = yield* setup("bcev")
      const id = yield* draftWith(s, [freshTo()])
      expect((yield* api(s, "POST", `/${id}/send`)).status).toBe(202)
      yield* Effect.flatMap(BroadcastSender, (sender) => sender.runOnce())
      const [recipient] = yield* recipientRows(id)
      const mid = recipient!.meta_message_id!
      const q = yield* sql
      // The sandbox posts sent, delivered and read callbacks a few milliseconds apart.
      const events = yield* eventually(Effect.map(
        q<{ event_type: string; source: string }>`
          select event_type, envelope::json -> 'data' ->> 'source' as source from events
          where event_type like 'message.%' and envelope::json -> 'data' ->> 'meta_message_id' = ${mid} order by id`.pipe(Effect.orDie),
        (rows) => (rows.length === 3 ? rows : undefined)
      ))
      expect(events).toEqual([
        { event_type: "message.sent", source: "api" },
        { event_type: "message.delivered", source: "api" },
        { event_type: "message.read", source: "api" }
      ])
      const [stored] = yield* q<{ source: string; status: string }>`select source, status from messages where meta_message_id = ${mid}`
      expect(stored).toEqual({ source: "broadcast", status: "read" })
    }))
})
