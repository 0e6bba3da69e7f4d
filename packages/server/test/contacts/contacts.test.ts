import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ContactWipe } from "../../src/contacts/contact-wipe.js"
import { ContactWipeSweepLive } from "../../src/contacts/contact-wipe-sweep.js"
import { createKey, request, signup } from "../auth/support.js"
import { MessagingTestServer, send, setup } from "../messages/support.js"
import { inject } from "../support/sandbox.js"
import { eventually } from "../support/receiver.js"
import { idsOf, seedChannel, seedThread } from "../support/data-plane.js"

const V1 = "/platform/v1"
const wipe = <A, E>(f: (w: ContactWipe) => Effect.Effect<A, E>) =>
  Effect.provide(Effect.flatMap(ContactWipe, f), ContactWipe.Default)

const rowCounts = (contact: number, conversation: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ contacts: number; conversations: number; messages: number }>`select
        (select count(*) from contacts where id = ${contact})::int as contacts,
        (select count(*) from conversations where id = ${conversation})::int as conversations,
        (select count(*) from messages where contact_id = ${contact} or conversation_id = ${conversation})::int as messages`,
      (rows) => rows[0]!
    )).pipe(Effect.orDie)

layer(MessagingTestServer(), { excludeTestServices: true, timeout: 120_000 })("contacts", (it) => {
  it.effect("GET /contacts lists newest first by channel, and q is a case-insensitive prefix of a name, the username or the phone", () =>
    Effect.gen(function*() {
      const dev = yield* signup("contacts-q")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const one = yield* seedChannel(dev.accountId)
      const two = yield* seedChannel(dev.accountId)
      const ada = yield* seedThread(dev.accountId, one, "4915550001", [], { profile_name: "Ada Lovelace" })
      const bob = yield* seedThread(dev.accountId, one, "15550002", [], { display_name: "Bob (VIP)", username: "bobby_tables" })
      const pct = yield* seedThread(dev.accountId, two, "15550003", [], { display_name: "100% Carla" })
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
        ["", [pct.contact, bob.contact, ada.contact]],
        [`channel_id=${one}`, [bob.contact, ada.contact]],
        [`channel_id=${two}`, [pct.contact]],
        ["q=ada", [ada.contact]],
        ["q=ADA%20LOVE", [ada.contact]],
        ["q=lovelace", []],
        ["q=bob", [bob.contact]],
        ["q=bobby_", [bob.contact]],
        ["q=b_bby", []],
        ["q=1555", [pct.contact, bob.contact]],
        ["q=%2B49", [ada.contact]],
        ["q=100%25", [pct.contact]],
        ["q=%25", []],
        ["q=nobody", []],
        [`q=ada&channel_id=${two}`, []],
        ["channel_id=999999999", []]
      ]
      for (const [query, ids] of cases) {
        const reply = yield* request("GET", `${V1}/contacts?${query}`, { key })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
      }
      const first = yield* request("GET", `${V1}/contacts?limit=2`, { key })
      expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) })
      const rest = yield* request("GET", `${V1}/contacts?limit=2&after=${first.body.next_cursor}`, { key })
      expect([...idsOf(first.body), ...idsOf(rest.body)]).toEqual([pct.contact, bob.contact, ada.contact])
      expect(rest.body).toMatchObject({ has_more: false, next_cursor: null })

      const got = yield* request("GET", `${V1}/contacts/${bob.contact}`, { key })
      expect(got.status, got.text).toBe(200)
      expect(got.body).toEqual({
        id: bob.contact,
        platform_channel_id: one,
        chat_id: "15550002",
        social_id: null,
        business_scoped_user_id: null,
        phone: "15550002",
        username: "bobby_tables",
        profile_name: null,
        display_name: "Bob (VIP)",
        contact_metadata: {},
        first_seen_at: expect.any(String),
        last_seen_at: expect.any(String),
        created_at: expect.any(String)
      })
    }))

  it.effect("PATCH /contacts merges contact_metadata (null removes a key) and sets display_name; bad bodies are 422", () =>
    Effect.gen(function*() {
      const dev = yield* signup("contacts-patch")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const channel = yield* seedChannel(dev.accountId)
      const { contact } = yield* seedThread(dev.accountId, channel, "15550010", [], {
        contact_metadata: JSON.stringify({ tier: "gold", crm_id: 7 })
      })
      const patched = yield* request("PATCH", `${V1}/contacts/${contact}`, {
        key,
        body: { display_name: "Grace", contact_metadata: { tier: null, note: { nested: [1, null] } } }
      })
      expect(patched.status, patched.text).toBe(200)
      expect(patched.body).toMatchObject({ id: contact, display_name: "Grace", contact_metadata: { crm_id: 7, note: { nested: [1, null] } } })
      expect(patched.body.contact_metadata).not.toHaveProperty("tier")
      const again = yield* request("GET", `${V1}/contacts/${contact}`, { key })
      expect(again.body).toEqual(patched.body)
      const empty = yield* request("PATCH", `${V1}/contacts/${contact}`, { key, body: {} })
      expect(empty.status).toBe(200)
      expect(empty.body).toEqual(patched.body)
      const longest = yield* request("PATCH", `${V1}/contacts/${contact}`, { key, body: { display_name: "é".repeat(255) } })
      expect(longest.status, longest.text).toBe(200)

      const bad: ReadonlyArray<readonly [unknown, ReadonlyArray<unknown>]> = [
        [{ display_name: "x".repeat(256) }, ["body", "display_name"]],
        [{ display_name: 5 }, ["body", "display_name"]],
        [{ contact_metadata: [1, 2] }, ["body", "contact_metadata"]],
        [{ contact_metadata: "x" }, ["body", "contact_metadata"]],
        [{ nickname: "x" }, ["body", "nickname"]]
      ]
      for (const [body, loc] of bad) {
        const reply = yield* request("PATCH", `${V1}/contacts/${contact}`, { key, body })
        expect(reply.status, `${JSON.stringify(body)}: ${reply.text}`).toBe(422)
        expect(reply.body.detail.map((d: { loc: unknown }) => d.loc), JSON.stringify(body)).toContainEqual(loc)
      }
      for (const [path, param] of [["contacts?limit=abc", "limit"], ["contacts?channel_id=x", "channel_id"], ["contacts?after=nope", "after"], ["contacts?name=x", "name"]] as const) {
        const reply = yield* request("GET", `${V1}/${path}`, { key })
        expect(reply.status, path).toBe(422)
        expect(reply.body.detail.map((d: { loc: unknown }) => d.loc), path).toContainEqual(["query", param])
      }
    }))

  it.effect("another account's contact is 404 on every route, like a missing one, and is never listed", () =>
    Effect.gen(function*() {
      const owner = yield* signup("contact-owner")
      const channel = yield* seedChannel(owner.accountId)
      const { contact } = yield* seedThread(owner.accountId, channel, "15550020", [{}], { display_name: "Mine" })
      const stranger = yield* signup("contact-stranger")
      const { key } = yield* createKey(stranger, { rate_limit_per_minute: 100000 })
      for (const id of [contact, 999999999]) {
        for (const [method, body] of [["GET", undefined], ["PATCH", { display_name: "stolen" }], ["DELETE", undefined]] as const) {
          const reply = yield* request(method, `${V1}/contacts/${id}`, { key, ...(body === undefined ? {} : { body }) })
          expect(reply.status, `${method} ${id}`).toBe(404)
          expect(reply.body).toEqual({ detail: { code: "not_found", message: expect.any(String) } })
        }
      }
      const listed = yield* request("GET", `${V1}/contacts?q=mine`, { key })
      expect(listed.body.data).toEqual([])
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ display_name: string; deleted_at: Date | null }>`select display_name, deleted_at from contacts where id = ${contact}`
      expect(row).toEqual({ display_name: "Mine", deleted_at: null })
    }))

  it.effect("read:contacts never updates or deletes, manage:data never reads; each passes its own routes", () =>
    Effect.gen(function*() {
      const dev = yield* signup("contact-scopes")
      const channel = yield* seedChannel(dev.accountId)
      const { contact } = yield* seedThread(dev.accountId, channel, "15550030", [])
      const keyWith = (scopes: ReadonlyArray<string>) =>
        Effect.map(createKey(dev, { scopes, rate_limit_per_minute: 100000 }), (k) => k.key)
      const reads = yield* keyWith(["read:messages", "read:conversations", "read:contacts"])
      const manage = yield* keyWith(["manage:data"])
      const cases: ReadonlyArray<readonly [string, string, string, number, string?]> = [
        ["GET", "contacts", reads, 200],
        ["GET", `contacts/${contact}`, reads, 200],
        ["PATCH", `contacts/${contact}`, reads, 403, "manage:data"],
        ["DELETE", `contacts/${contact}`, reads, 403, "manage:data"],
        ["GET", "contacts", manage, 403, "read:contacts"],
        ["GET", `contacts/${contact}`, manage, 403, "read:contacts"],
        ["PATCH", `contacts/${contact}`, manage, 200],
        ["DELETE", `contacts/${contact}`, manage, 202]
      ]
      for (const [method, path, key, status, scope] of cases) {
        const reply = yield* request(method, `${V1}/${path}`, { key, ...(method === "PATCH" ? { body: { display_name: "x" } } : {}) })
        expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(status)
        if (scope !== undefined) expect(reply.body.detail).toMatchObject({ code: "missing_scope", required_scope: scope })
      }
    }))

  it.effect("DELETE /contacts is 202 and hides the contact, its messages and conversation at once; the wipe then removes the rows in batches", () =>
    Effect.gen(function*() {
      const { chat, dev, key } = yield* setup("contact-delete")
      const sql = yield* SqlClient.SqlClient
      // A contact with real history: a send, an inbound reply (events written for both), then more seeded messages.
      const sent = yield* send(key, { channel_id: chat, to: "15550040", type: "text", text: "hello" })
      expect(sent.status, sent.text).toBe(200)
      yield* inject(dev, { channel_id: chat, from: "15550040", text: "reply" })
      const inbound = yield* eventually(Effect.map(
        request("GET", `${V1}/messages?direction=inbound&channel_id=${chat}`, { key }),
        (r) => r.body.data[0] as { id: number; contact_id: number; conversation_id: number } | undefined
      ))
      const contact = inbound.contact_id
      const conversation = inbound.conversation_id
      // The sandbox posts the send's sent, delivered and read callbacks on its own time: their events
      // are all written before the events are counted below.
      yield* eventually(Effect.map(
        request("GET", `${V1}/messages?direction=outbound&channel_id=${chat}`, { key }),
        (r) => r.body.data[0]?.status === "read" ? true : undefined
      ))
      yield* sql`insert into messages (developer_account_id, platform_channel_id, conversation_id, contact_id, direction, source, type, text)
        select ${dev.accountId}, ${chat}, ${conversation}, ${contact}, 'inbound', 'contact', 'text', 'more ' || n
        from generate_series(1, 5) n`
      const other = yield* seedThread(dev.accountId, chat, "15550041", [{}, {}])
      const [events] = yield* sql<{ n: number }>`select count(*)::int as n from events where developer_account_id = ${dev.accountId}`

      // The wipe takes any account's marked contacts: first the ones other tests of this file deleted.
      yield* wipe((w) => w.runOnce())
      const deleted = yield* request("DELETE", `${V1}/contacts/${contact}`, { key })
      expect(deleted.status, deleted.text).toBe(202)
      expect(deleted.body).toEqual({ id: contact, deleted: true })

      // Gone from every read at once, though the rows are still there.
      for (const path of [`contacts/${contact}`, `messages/${inbound.id}`, `conversations/${conversation}`]) {
        expect((yield* request("GET", `${V1}/${path}`, { key })).status, path).toBe(404)
      }
      expect((yield* request("PATCH", `${V1}/contacts/${contact}`, { key, body: { display_name: "x" } })).status).toBe(404)
      expect((yield* request("PATCH", `${V1}/conversations/${conversation}`, { key, body: { status: "ended" } })).status).toBe(404)
      expect((yield* request("DELETE", `${V1}/contacts/${contact}`, { key })).status).toBe(404)
      const messages = yield* request("GET", `${V1}/messages?channel_id=${chat}`, { key })
      expect(idsOf(messages.body)).toEqual([...other.messages].reverse())
      expect(idsOf((yield* request("GET", `${V1}/messages?contact_id=${contact}`, { key })).body)).toEqual([])
      expect(idsOf((yield* request("GET", `${V1}/conversations?channel_id=${chat}`, { key })).body)).toEqual([other.conversation])
      expect(idsOf((yield* request("GET", `${V1}/contacts?channel_id=${chat}`, { key })).body)).toEqual([other.contact])
      expect(yield* rowCounts(contact, conversation)).toEqual({ contacts: 1, conversations: 1, messages: 7 })

      // One batch (as if the worker crashed after it): 3 messages gone, the rest still hidden, nothing half-visible.
      const first = yield* wipe((w) => w.step(3))
      expect(first).toEqual({ messages: 3, finished: false })
      expect(yield* rowCounts(contact, conversation)).toEqual({ contacts: 1, conversations: 1, messages: 4 })
      expect((yield* request("GET", `${V1}/contacts/${contact}`, { key })).status).toBe(404)

      // The next run resumes from the mark and finishes: 4 more messages in 2 batches, the conversation, the contact.
      const rest = yield* wipe((w) => w.runOnce(3))
      expect(rest).toEqual({ contacts: 1, messages: 4 })
      expect(yield* rowCounts(contact, conversation)).toEqual({ contacts: 0, conversations: 0, messages: 0 })
      expect(yield* wipe((w) => w.runOnce(3))).toEqual({ contacts: 0, messages: 0 })

      // The other contact is untouched; events written about the wiped rows stay (no foreign key to them).
      expect(yield* rowCounts(other.contact, other.conversation)).toEqual({ contacts: 1, conversations: 1, messages: 2 })
      const [after] = yield* sql<{ n: number }>`select count(*)::int as n from events where developer_account_id = ${dev.accountId}`
      expect(after!.n).toBe(events!.n)

      // The same person writing again later starts a new contact and conversation.
      yield* inject(dev, { channel_id: chat, from: "15550040", text: "back again" })
      const fresh = yield* eventually(Effect.map(
        request("GET", `${V1}/contacts?channel_id=${chat}&q=15550040`, { key }),
        (r) => r.body.data[0] as { id: number } | undefined
      ))
      expect(fresh.id).not.toBe(contact)
    }))

  it.effect("the same person writing (or written to) after the DELETE but before the wipe starts a new contact and conversation; the wipe keeps them", () =>
    Effect.gen(function*() {
      const { chat, dev, key } = yield* setup("contact-rewrite")
      yield* wipe((w) => w.runOnce())
      const peer = "15550060"
      yield* inject(dev, { channel_id: chat, from: peer, text: "before" })
      const old = yield* eventually(Effect.map(
        request("GET", `${V1}/messages?direction=inbound&channel_id=${chat}`, { key }),
        (r) => r.body.data[0] as { id: number; contact_id: number; conversation_id: number } | undefined
      ))
      expect((yield* request("DELETE", `${V1}/contacts/${old.contact_id}`, { key })).status).toBe(202)

      // The wipe has not run yet: a new inbound and a send to the same peer.
      yield* inject(dev, { channel_id: chat, from: peer, text: "after" })
      const inbound = yield* eventually(Effect.map(
        request("GET", `${V1}/messages?direction=inbound&channel_id=${chat}`, { key }),
        (r) => r.body.data[0] as { id: number; contact_id: number; conversation_id: number; text: string } | undefined
      ))
      expect(inbound.text).toBe("after")
      expect(inbound.contact_id).not.toBe(old.contact_id)
      expect(inbound.conversation_id).not.toBe(old.conversation_id)
      const sql = yield* SqlClient.SqlClient
      const created = yield* sql<{ n: number }>`select count(*)::int as n from events
        where developer_account_id = ${dev.accountId} and event_type = 'conversation.created'`
      expect(created[0]!.n).toBe(2)
      const sent = yield* send(key, { channel_id: chat, to: peer, type: "text", text: "welcome back" })
      expect(sent.status, sent.text).toBe(200)
      const outbound = yield* request("GET", `${V1}/messages?direction=outbound&channel_id=${chat}`, { key })
      expect(outbound.body.data.map((m: { contact_id: number; conversation_id: number }) => [m.contact_id, m.conversation_id]))
        .toEqual([[inbound.contact_id, inbound.conversation_id]])
      const conversation = yield* request("GET", `${V1}/conversations/${inbound.conversation_id}`, { key })
      expect(conversation.status, conversation.text).toBe(200)
      expect(conversation.body).toMatchObject({ peer_id: peer, platform_contact_id: inbound.contact_id, message_count: 2 })
      const listed = yield* request("GET", `${V1}/contacts?channel_id=${chat}`, { key })
      expect(listed.body.data.map((k: { id: number; chat_id: string }) => [k.id, k.chat_id])).toEqual([[inbound.contact_id, peer]])

      // The wipe removes the old contact's rows only.
      expect(yield* wipe((w) => w.runOnce())).toEqual({ contacts: 1, messages: 1 })
      expect(yield* rowCounts(old.contact_id, old.conversation_id)).toEqual({ contacts: 0, conversations: 0, messages: 0 })
      const after = yield* request("GET", `${V1}/messages?channel_id=${chat}`, { key })
      expect(after.body.data).toHaveLength(2)
      expect((yield* request("GET", `${V1}/contacts/${inbound.contact_id}`, { key })).status).toBe(200)
    }))

  it.scoped("the contact wipe worker, once started, wipes a deleted contact without being asked", () =>
    Effect.gen(function*() {
      const dev = yield* signup("contact-worker")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const channel = yield* seedChannel(dev.accountId)
      const thread = yield* seedThread(dev.accountId, channel, "15550050", [{}, {}, {}])
      expect((yield* request("DELETE", `${V1}/contacts/${thread.contact}`, { key })).status).toBe(202)
      yield* Layer.build(ContactWipeSweepLive)
      yield* eventually(Effect.map(rowCounts(thread.contact, thread.conversation), (n) =>
        n.contacts + n.conversations + n.messages === 0 ? true : undefined))
    }))
})
