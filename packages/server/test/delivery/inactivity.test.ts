import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { InactivitySweep } from "../../src/delivery/inactivity.js"
import { createAccount, createSubscription, deliveriesOf, TestEngine } from "../support/delivery.js"

layer(TestEngine)("inactivity sweep (SPEC §3.2)", (it) => {
  it.scoped("an idle conversation gets one conversation.inactive per period of inactivity; activity re-arms it", () =>
    Effect.gen(function*() {
      const t0 = Date.parse("2025-07-01T00:00:00.000Z")
      yield* TestClock.setTime(t0)
      const sql = yield* SqlClient.SqlClient
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook", inactivityMinutes: 30 })
      const other = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/other" })
      const [conv] = yield* sql<{ id: number }>`
        insert into conversations (developer_account_id, platform_channel_id, peer_id, last_active_at, message_count)
        values (${accountId}, ${channelId}, 'peer-1', ${new Date(t0)}, 3) returning id`
      yield* sql`insert into conversations (developer_account_id, platform_channel_id, peer_id, status, last_active_at)
        values (${accountId}, ${channelId}, 'ended-peer', 'ended', ${new Date(t0)})`
      const sweep = yield* InactivitySweep

      yield* TestClock.adjust(Duration.minutes(30))
      expect(yield* sweep.runOnce()).toBe(0)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* sweep.runOnce()).toBe(1)
      yield* TestClock.adjust(Duration.minutes(10))
      expect(yield* sweep.runOnce()).toBe(0)

      const [row] = yield* deliveriesOf(sub.id)
      expect(row!.envelope).toMatchObject({
        event: "conversation.inactive",
        developer_account_id: accountId,
        platform_channel_id: channelId,
        api_version: "platform-v1",
        data: { conversation_id: conv!.id, peer_id: "peer-1", status: "active", message_count: 3,
          last_active_at: new Date(t0).toISOString() }
      })
      expect(row!.event_id).toMatch(/^evt_[0-9a-f]{32}$/)
      expect(yield* deliveriesOf(other.id)).toHaveLength(0)

      // New activity re-arms the notice.
      const later = new Date(t0 + 45 * 60_000)
      yield* sql`update conversations set last_active_at = ${later} where id = ${conv!.id}`
      yield* TestClock.adjust(Duration.minutes(34))
      expect(yield* sweep.runOnce()).toBe(0)
      yield* TestClock.adjust(Duration.minutes(2))
      expect(yield* sweep.runOnce()).toBe(1)
      expect(yield* deliveriesOf(sub.id)).toHaveLength(2)
    }))

  // now() in SQL keeps microseconds, which a JavaScript Date cannot hold.
  it.scoped("a last_active_at with microseconds, as now() writes it, is notified once, not at every sweep", () =>
    Effect.gen(function*() {
      const t0 = Date.parse("2025-08-01T00:00:00.000Z")
      yield* TestClock.setTime(t0)
      const sql = yield* SqlClient.SqlClient
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook", inactivityMinutes: 1 })
      yield* sql`insert into conversations (developer_account_id, platform_channel_id, peer_id, last_active_at)
        values (${accountId}, ${channelId}, 'peer-us', '2025-08-01T00:00:00.123456Z'::timestamptz)`
      const sweep = yield* InactivitySweep
      yield* TestClock.adjust(Duration.minutes(2))
      expect(yield* sweep.runOnce()).toBe(1)
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust(Duration.minutes(1))
        expect(yield* sweep.runOnce()).toBe(0)
      }
      const rows = yield* deliveriesOf(sub.id)
      expect(rows).toHaveLength(1)
      expect(rows[0]!.envelope.data.last_active_at).toBe("2025-08-01T00:00:00.123Z")
    }))

  it.scoped("a conversation of a contact marked deleted gets no conversation.inactive while its wipe is pending", () =>
    Effect.gen(function*() {
      const t0 = Date.parse("2025-09-01T00:00:00.000Z")
      yield* TestClock.setTime(t0)
      const sql = yield* SqlClient.SqlClient
      const { accountId, channelId } = yield* createAccount()
      const sub = yield* createSubscription({ accountId, url: "http://127.0.0.1:9/hook", inactivityMinutes: 1 })
      const [contact] = yield* sql<{ id: number }>`insert into contacts (developer_account_id, platform_channel_id, chat_id, deleted_at)
        values (${accountId}, ${channelId}, 'peer-gone', now()) returning id`
      yield* sql`insert into conversations (developer_account_id, platform_channel_id, platform_contact_id, peer_id, last_active_at)
        values (${accountId}, ${channelId}, ${contact!.id}, 'peer-gone', ${new Date(t0)})`
      const sweep = yield* InactivitySweep
      yield* TestClock.adjust(Duration.minutes(2))
      expect(yield* sweep.runOnce()).toBe(0)
      expect(yield* deliveriesOf(sub.id)).toHaveLength(0)
    }))
})
