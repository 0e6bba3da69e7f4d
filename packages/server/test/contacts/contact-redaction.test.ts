import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DeliveryBuffer } from "../../src/delivery/buffer.js"
import { FanOut } from "../../src/delivery/fan-out.js"
import { InactivitySweep } from "../../src/delivery/inactivity.js"
import { ContactWipe } from "../../src/contacts/contact-wipe.js"
import { Events } from "../../src/outbox/events.js"
import { baseUrl, request } from "../auth/support.js"
import { createSubscription, drainDeliveries } from "../support/delivery.js"
import { startReceiver } from "../support/receiver.js"
import { webhookDeveloper, WebhooksTestServer } from "../support/webhooks.js"
import { seedThread, type SeededThread } from "../support/data-plane.js"

const V1 = "/platform/v1"
const wipe = <A, E>(f: (w: ContactWipe) => Effect.Effect<A, E>) =>
  Effect.provide(Effect.flatMap(ContactWipe, f), ContactWipe.Default)

/** The message.received and conversation.created events an inbound message writes, about `thread`. */
const inboundEvents = (accountId: number, channelId: number, peer: string, thread: SeededThread, text: string) =>
  Effect.gen(function*() {
    const events = yield* Events
    const received = yield* events.write({
      event: "message.received",
      developer_account_id: accountId,
      platform_channel_id: channelId,
      conversation_peer: peer,
      data: {
        message_id: thread.messages[0]!,
        conversation_id: thread.conversation,
        peer_id: peer,
        direction: "inbound",
        source: "contact",
        type: "text",
        text,
        has_media: false,
        media_id: null,
        status: null,
        meta_message_id: `wamid.${peer}`
      }
    })
    const created = yield* events.write({
      event: "conversation.created",
      developer_account_id: accountId,
      platform_channel_id: channelId,
      data: {
        conversation_id: thread.conversation,
        peer_id: peer,
        status: "active",
        message_count: 1,
        last_active_at: new Date().toISOString()
      }
    })
    return [received.envelope.id, created.envelope.id] as const
  })

/** The account's event stream from after `lastEventId`, read until `untilEventId` has come: the raw SSE text. */
const replay = (key: string, lastEventId: string, untilEventId: string) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const controller = new AbortController()
    yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
    return yield* Effect.promise(async () => {
      const response = await fetch(`${base}${V1}/events/stream`, {
        headers: { "x-api-key": key, "last-event-id": lastEventId },
        signal: controller.signal
      })
      expect(response.status).toBe(200)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (!text.includes(`id: ${untilEventId}\n`)) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      return text
    })
  }).pipe(Effect.timeout("15 seconds"), Effect.orDie)

layer(WebhooksTestServer, { excludeTestServices: true, timeout: 60_000 })("contact deletion and the envelopes", (it) => {
  it.scoped(
    "after DELETE /contacts and its wipe, the contact's events read [redacted] (ids, types, conversation and times kept) in deliveries with full_envelope, batches, inactivity notices, the stream's replay and the POSTs still pending; another contact's, and those of a new contact with the same phone, stay whole",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { accountId, channelId, key } = yield* webhookDeveloper("contact-redact")
        const receiver = yield* startReceiver()
        yield* createSubscription({ accountId, url: receiver.url, eventTypes: ["message.received", "conversation.created"] })
        yield* createSubscription({ accountId, url: receiver.url, eventTypes: ["message.received"], bufferWindowSeconds: 60, bufferMaxBatch: 2 })
        yield* createSubscription({ accountId, url: receiver.url, eventTypes: ["conversation.inactive"], inactivityMinutes: 1 })
        const fanOut = yield* FanOut
        const buffer = yield* DeliveryBuffer

        const person = "15550090"
        const other = "15550091"
        const mine = yield* seedThread(accountId, channelId, person, [{}])
        const theirs = yield* seedThread(accountId, channelId, other, [{}])
        const [before] = yield* inboundEvents(accountId, channelId, other, theirs, `words of ${other}`)
        const [received] = yield* inboundEvents(accountId, channelId, person, mine, `words of ${person}`)
        yield* fanOut.drain()
        // Two message.received envelopes make a full batch of the buffered subscription; a third waits staged.
        expect((yield* buffer.runOnce()).batches).toBe(1)
        const [, last] = yield* inboundEvents(accountId, channelId, person, mine, `more words of ${person}`)
        yield* fanOut.drain()
        // Inactivity notices carry their own envelope.
        yield* sql`update conversations set last_active_at = now() - interval '2 hours'
          where id in (${mine.conversation}, ${theirs.conversation})`
        expect(yield* Effect.flatMap(InactivitySweep, (s) => s.runOnce())).toBe(2)

        const deleted = yield* request("DELETE", `${V1}/contacts/${mine.contact}`, { key })
        expect(deleted.status, deleted.text).toBe(202)
        // The same person writes again before the wipe: a new contact and conversation, which the wipe keeps whole.
        const fresh = yield* seedThread(accountId, channelId, person, [{}])
        const [again, newest] = yield* inboundEvents(accountId, channelId, person, fresh, "back again")
        yield* fanOut.drain()
        // Small batches, each its own transaction: one, as if the worker then crashed, and the
        // next run resumes the redaction from its saved position, batch after batch.
        expect(yield* wipe((w) => w.step(2))).toEqual({ messages: 1, finished: false })
        expect(yield* wipe((w) => w.runOnce(2))).toEqual({ contacts: 1, messages: 0 })
        // The staged envelopes' window closes after the wipe: their batch is built from the redacted copies.
        yield* sql`update webhook_buffer_items set created_at = now() - interval '2 minutes'
          where developer_account_id = ${accountId}`
        expect((yield* buffer.runOnce()).batches).toBe(1)

        /** Every envelope of `payloads` (single or batched), by conversation: the deleted one's redacted, the others whole. */
        const expectRedacted = (payloads: ReadonlyArray<any>, counts: readonly [number, number, number]) => {
          const envelopes = payloads.flatMap((p) => p.events ?? [p])
          const about = (conversation: number) => envelopes.filter((e) => e.data.conversation_id === conversation)
          expect([about(mine.conversation).length, about(fresh.conversation).length, about(theirs.conversation).length])
            .toEqual(counts)
          for (const e of about(mine.conversation)) {
            expect(e.data.peer_id).toBe("[redacted]")
            expect(JSON.stringify(e)).not.toContain(person)
          }
          for (const e of about(fresh.conversation)) expect(e.data.peer_id).toBe(person)
          for (const e of about(theirs.conversation)) expect(e.data.peer_id).toBe(other)
          expect(JSON.stringify(payloads)).not.toContain(`words of ${person}`)
          expect(JSON.stringify(payloads)).toContain("back again")
        }

        // Every delivery, with its full envelope, through the API.
        const list = yield* request("GET", `${V1}/webhooks/deliveries?limit=100`, { key })
        expect(list.status, list.text).toBe(200)
        const full = []
        for (const d of list.body.data as Array<{ id: number }>) {
          const one = yield* request("GET", `${V1}/webhooks/deliveries/${d.id}?include=full_envelope`, { key })
          expect(one.status, one.text).toBe(200)
          full.push(one.body)
        }
        // 8 fanned out, 2 batches, 2 inactivity notices; of the deleted conversation: 4 alone, 2 in batches, 1 notice.
        expect(full).toHaveLength(12)
        expectRedacted(full.map((d) => d.envelope), [7, 3, 4])
        const redacted = full.find((d) => d.event_id === received && d.envelope.events === undefined)
        expect(redacted).toMatchObject({
          event_type: "message.received",
          conversation_peer: "[redacted]",
          envelope: {
            id: received,
            event: "message.received",
            developer_account_id: accountId,
            platform_channel_id: channelId,
            occurred_at: expect.any(String),
            api_version: "platform-v1",
            data: {
              message_id: mine.messages[0],
              conversation_id: mine.conversation,
              peer_id: "[redacted]",
              direction: "inbound",
              source: "contact",
              type: "text",
              text: "[redacted]",
              has_media: false,
              media_id: null,
              status: null,
              meta_message_id: "[redacted]"
            }
          }
        })
        expect(full.find((d) => d.event_id === again && d.envelope.events === undefined))
          .toMatchObject({ conversation_peer: person, envelope: { data: { peer_id: person, text: "back again" } } })
        const notice = full.find((d) => d.event_type === "conversation.inactive" && d.envelope.data.conversation_id === mine.conversation)
        expect(notice.envelope.data).toMatchObject({ conversation_id: mine.conversation, peer_id: "[redacted]", message_count: 1 })
        const batches = full.filter((d) => d.envelope.events !== undefined)
        expect(batches.map((b) => b.envelope.events.map((e: { data: { peer_id: string } }) => e.data.peer_id)))
          .toEqual(expect.arrayContaining([[other, "[redacted]"], ["[redacted]", person]]))

        // The stream's replay after Last-Event-ID: 4 events of the deleted conversation, 2 of the new one, 1 of the other.
        const stream = yield* replay(key, before!, newest!)
        expect(stream).toContain(received)
        expectRedacted(
          stream.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6))),
          [4, 2, 1]
        )

        // The deliveries still pending send the redacted envelopes.
        yield* drainDeliveries()
        expect(receiver.received).toHaveLength(12)
        expectRedacted(receiver.received.map((r) => JSON.parse(r.body.toString("utf8"))), [7, 3, 4])

        // Nor does any stored envelope or peer of the deleted conversation still name the person.
        const [left] = yield* sql<{ texts: number; peers: number }>`select
          (select count(*) from events where developer_account_id = ${accountId} and envelope::text like ${`%words of ${person}%`})::int +
          (select count(*) from webhook_deliveries where developer_account_id = ${accountId}
             and envelope::text like ${`%words of ${person}%`})::int +
          (select count(*) from webhook_buffer_items where developer_account_id = ${accountId}
             and envelope::text like ${`%words of ${person}%`})::int as texts,
          (select count(*) from events where developer_account_id = ${accountId} and conversation_peer = ${person})::int +
          (select count(*) from webhook_deliveries where developer_account_id = ${accountId} and conversation_peer = ${person})::int
            as peers`
        // The new conversation's message.received event and its delivery keep the peer.
        expect(left).toEqual({ texts: 0, peers: 2 })
      })
  )
})
