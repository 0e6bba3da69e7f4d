import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { groupsOf, mergePlans, shares } from "../../src/inbound/batch.js"
import type { CreatedDelivery } from "../../src/inbound/batch.js"
import { InboundStore } from "../../src/inbound/persist.js"
import type { ForwardRow, InboundPlan, MessageRow, StatusRow } from "../../src/inbound/plan.js"
import { inboundText, statusCallback, wamid } from "../fixtures/meta/inbound.js"
import { createSubscription } from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"
import { createChannel, postInbound, TestInbound } from "./support.js"

const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(query(sql)))

const message = (i: number, mid: string, peer = "5511900000001"): MessageRow => ({
  i,
  channel_id: 1,
  account_id: 1,
  kind: "message",
  mid,
  peer,
  chat_id: peer,
  social_id: null,
  bsuid: null,
  phone: peer,
  username: null,
  profile_name: null,
  type: "text",
  body: mid,
  payload: {},
  media_id: null,
  evt: `evt_${mid}`,
  conv_evt: `evt_conv_${mid}`
})
const status = (i: number, mid: string, value: string): StatusRow => ({
  i,
  channel_id: 1,
  mid,
  status: value,
  envelope: null,
  evt: `evt_${mid}_${value}`
})
const forward = (i: number, body: string): ForwardRow => ({ i, channel_id: 1, body, other: false, parked: null })
const plan = (parts: Partial<InboundPlan>): InboundPlan => ({
  routed: true,
  messages: [],
  statuses: [],
  templates: [],
  qualities: [],
  forwards: [],
  ...parts
})
const delivery = (id: number, body: string): CreatedDelivery => ({
  id,
  developer_account_id: 1,
  platform_channel_id: 1,
  attempts: 0,
  body,
  webhook_url: "https://example.com/hook",
  webhook_secret_encrypted: null
})

describe("inbound batches (group commit)", () => {
  it("merging renumbers rows in POST order and tags each row with its POST", () => {
    const merged = mergePlans([
      plan({ messages: [message(0, "a"), message(2, "b")], statuses: [status(1, "x", "read")], forwards: [forward(0, "A")] }),
      plan({ messages: [message(0, "c")], forwards: [forward(0, "C")] })
    ])
    expect(merged.messages.map((m) => [m.mid, m.i, m.p])).toEqual([["a", 0, 0], ["b", 2, 0], ["c", 3, 1]])
    expect(merged.statuses.map((s) => [s.mid, s.i, s.p])).toEqual([["x", 1, 0]])
    expect(merged.forwards.map((f) => [f.body, f.i, f.p])).toEqual([["A", 0, 0], ["C", 1, 1]])
    expect(mergePlans([plan({ messages: [message(0, "a")] })]).messages[0]).toMatchObject({ i: 0, p: 0 })
  })

  it("two status callbacks for one message never share a statement (delivered's event would be lost to read)", () => {
    const items = [
      { plan: plan({ statuses: [status(0, "m1", "delivered")] }) },
      { plan: plan({ messages: [message(0, "new")] }) },
      { plan: plan({ statuses: [status(0, "m1", "read")] }) },
      { plan: plan({ statuses: [status(0, "m2", "read")] }) }
    ]
    expect(groupsOf(items).map((g) => g.map((item) => items.indexOf(item)))).toEqual([[0, 1], [2, 3]])
  })

  it("each POST gets its own inserted count, unknown statuses and raw-forward rows; identical bodies get one row each", () => {
    const plans = [
      plan({ messages: [message(0, "a"), message(1, "b")], forwards: [forward(0, "A")] }),
      plan({ statuses: [status(0, "gone", "read")], forwards: [forward(0, "S")] }),
      plan({ statuses: [status(0, "gone2", "read")], forwards: [forward(0, "S")] }),
      plan({ messages: [message(0, "dup")], forwards: [forward(0, "D")] })
    ]
    const result = shares(plans, {
      inserted: [0, 0],
      refused: false,
      unknownStatuses: ["gone", "gone2"],
      deliveries: [delivery(1, "A"), delivery(2, "S"), delivery(3, "S")],
      events: 2
    })
    expect(result.map((r) => r.inserted)).toEqual([2, 0, 0, 0])
    expect(result.map((r) => r.unknownStatuses)).toEqual([[], ["gone"], ["gone2"], []])
    expect(result.map((r) => r.deliveries.map((d) => d.id))).toEqual([[1], [2], [3], []])
  })
})

layer(TestInbound(), { excludeTestServices: true })("/webhook/incoming under concurrency", (it) => {
  it.effect("many concurrent POSTs are all stored, each with its conversation, events in order per peer", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peers = Array.from({ length: 12 }, (_, i) => `55119100000${String(i).padStart(2, "0")}`)
      const payloads = peers.flatMap((peer) => [0, 1, 2].map((n) => inboundText(ch.line, peer, `${peer} #${n}`)))
      const answers = yield* Effect.forEach(payloads, (p) => postInbound(p), { concurrency: "unbounded" })
      for (const a of answers) expect(a).toMatchObject({ status: 200, body: { status: "platform", forwarded: false } })
      const convs = yield* rows<{ peer_id: string; message_count: number; inbound_count: number }>((sql) => sql`
        select peer_id, message_count, inbound_count from conversations where platform_channel_id = ${ch.channelId} order by peer_id`)
      expect(convs).toEqual(peers.map((peer_id) => ({ peer_id, message_count: 3, inbound_count: 3 })))
      const events = yield* rows<{ event_type: string; conversation_peer: string | null; message_id: number | null }>((sql) => sql`
        select event_type, conversation_peer, (envelope->'data'->>'message_id')::int as message_id
        from events where developer_account_id = ${ch.accountId} order by id`)
      expect(events.filter((e) => e.event_type === "conversation.created")).toHaveLength(12)
      const received = events.filter((e) => e.event_type === "message.received")
      expect(received).toHaveLength(36)
      for (const peer of peers) {
        const ids = received.filter((e) => e.conversation_peer === peer).map((e) => e.message_id!)
        expect(ids).toEqual([...ids].sort((a, b) => a - b))
      }
    }))

  it.effect("the same message POSTed many times at once is stored once, with one event", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const payload = inboundText(ch.line, "5511920000001", "uma só vez", { id: wamid() })
      const answers = yield* Effect.forEach(Array.from({ length: 10 }, () => payload), (p) => postInbound(p), { concurrency: "unbounded" })
      for (const a of answers) expect(a.status).toBe(200)
      const [n] = yield* rows<{ messages: number; events: number }>((sql) => sql`
        select (select count(*)::int from messages where platform_channel_id = ${ch.channelId}) as messages,
               (select count(*)::int from events where developer_account_id = ${ch.accountId} and event_type = 'message.received') as events`)
      expect(n).toEqual({ messages: 1, events: 1 })
    }))

  it.effect("delivered and read for one message POSTed at once: read wins and is announced once", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const mid = wamid()
      yield* rows((sql) => sql`
        with c as (insert into conversations (developer_account_id, platform_channel_id, peer_id)
                   values (${ch.accountId}, ${ch.channelId}, '5511920000002') returning id)
        insert into messages (developer_account_id, platform_channel_id, conversation_id, direction, source, type, text, status, meta_message_id)
        select ${ch.accountId}, ${ch.channelId}, c.id, 'outbound', 'api', 'text', 'hi', 'sent', ${mid} from c returning id`)
      yield* Effect.forEach(["delivered", "read"], (s) => postInbound(statusCallback(ch.line, mid, s)), { concurrency: "unbounded" })
      const [m] = yield* rows<{ status: string }>((sql) => sql`select status from messages where meta_message_id = ${mid}`)
      expect(m!.status).toBe("read")
      const events = yield* rows<{ event_type: string }>((sql) => sql`
        select event_type from events where developer_account_id = ${ch.accountId} order by id`)
      // Whichever POST commits first: a delivered that loses the race is stale and says nothing.
      expect(events.filter((e) => e.event_type === "message.read")).toHaveLength(1)
      expect(events.at(-1)!.event_type).toBe("message.read")
    }))

  it.scoped("concurrent POSTs to a raw-forward channel: each new message forwarded once, duplicates not", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver()
      const ch = yield* createChannel({ webhookUrl: receiver.url, webhookSecret: "whsec_batch_secret" })
      const fresh = Array.from({ length: 8 }, (_, i) => inboundText(ch.line, "5511920000003", `novo ${i}`))
      const dup = inboundText(ch.line, "5511920000004", "repetida", { id: wamid() })
      yield* postInbound(dup)
      const answers = yield* Effect.forEach([...fresh, dup, dup], (p) => postInbound(p), { concurrency: "unbounded" })
      expect(answers.slice(0, 8).map((a) => a.body)).toEqual(fresh.map(() => ({ status: "platform", forwarded: true })))
      expect(answers.slice(8).map((a) => a.body)).toEqual([
        { status: "platform", forwarded: false },
        { status: "platform", forwarded: false }
      ])
      const got = yield* receiver.waitFor(9)
      expect(new Set(got.map((r) => r.body.toString())).size).toBe(9)
      const [n] = yield* rows<{ n: number }>((sql) => sql`
        select count(*)::int as n from platform_deliveries where platform_channel_id = ${ch.channelId}`)
      expect(n!.n).toBe(9)
    }))

  it.effect("events of an account with no active subscription are written fanned out; with one they wait for the fan-out", () =>
    Effect.gen(function*() {
      const quiet = yield* createChannel()
      yield* postInbound(inboundText(quiet.line, "5511920000005", "ninguém escuta"))
      const watched = yield* createChannel()
      yield* createSubscription({ accountId: watched.accountId, url: "https://example.com/hook", eventTypes: ["message.received"] })
      const paused = yield* createChannel()
      const sub = yield* createSubscription({ accountId: paused.accountId, url: "https://example.com/hook" })
      yield* rows((sql) => sql`update webhook_subscriptions set is_paused = true where id = ${sub.id} returning id`)
      yield* postInbound(inboundText(paused.line, "5511920000006", "pausada"))
      // Fanned out when written, or waiting in the outbox for the fan-out: never both.
      const fanned = (accountId: number) =>
        rows<{ fanned: boolean }>((sql) => sql`
          select e.fanned_out_at is not null as fanned from events e
          where e.developer_account_id = ${accountId}
            and (e.fanned_out_at is null) = exists (select 1 from event_outbox o where o.event_row = e.id)`)
      expect(yield* fanned(quiet.accountId)).toEqual([{ fanned: true }, { fanned: true }])
      expect(yield* fanned(paused.accountId)).toEqual([{ fanned: true }, { fanned: true }])
      yield* postInbound(inboundText(watched.line, "5511920000007", "alguém escuta"))
      expect(yield* fanned(watched.accountId)).toEqual([{ fanned: false }, { fanned: false }])
    }))

  it.effect("a batch being written when the store shuts down is still committed and answered", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const scope = yield* Scope.make()
      const store = Context.get(yield* Layer.buildWithScope(InboundStore.Default, scope), InboundStore)
      const row = { ...message(0, wamid(), "5511920000009"), channel_id: ch.channelId, account_id: ch.accountId }
      // Statuses only (no quota demand), so the POST goes through the batch queue.
      const mid = row.mid
      yield* rows((sql) => sql`
        with c as (insert into conversations (developer_account_id, platform_channel_id, peer_id)
                   values (${ch.accountId}, ${ch.channelId}, ${row.peer}) returning id)
        insert into messages (developer_account_id, platform_channel_id, conversation_id, direction, source, type, text, status, meta_message_id)
        select ${ch.accountId}, ${ch.channelId}, c.id, 'outbound', 'api', 'text', 'hi', 'sent', ${mid} from c returning id`)
      const persisting = yield* Effect.fork(
        store.persist(plan({ statuses: [{ ...status(0, mid, "delivered"), channel_id: ch.channelId }] }), { inline: false })
      )
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      yield* Scope.close(scope, Exit.void)
      const result = yield* Fiber.join(persisting)
      expect(result).toMatchObject({ quotaExceeded: false, unknownStatuses: [] })
      const [e] = yield* rows<{ n: number }>((sql) => sql`
        select count(*)::int as n from events where developer_account_id = ${ch.accountId} and event_type = 'message.delivered'`)
      expect(e!.n).toBe(1)
      const [m] = yield* rows<{ status: string }>((sql) => sql`select status from messages where meta_message_id = ${mid}`)
      expect(m!.status).toBe("delivered")
    }).pipe(Effect.timeout("10 seconds")))
})
