import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createKey, request, signup } from "../auth/support.js"
import { MessagingTestServer, send, setup } from "./support.js"
import { inject } from "../support/sandbox.js"
import { eventually } from "../support/receiver.js"
import { idsOf, seedChannel, seedThread } from "../support/data-plane.js"

const V1 = "/platform/v1"

/** Follows next_cursor (as `after`) from the first page of `path` to the end; the ids in page order. */
const walk = (path: string, key: string) =>
  Effect.gen(function*() {
    const ids: Array<number> = []
    let url = path
    for (let pages = 0; pages < 50; pages++) {
      const page = yield* request("GET", url, { key })
      expect(page.status, page.text).toBe(200)
      ids.push(...idsOf(page.body))
      if (!page.body.has_more) {
        expect(page.body.next_cursor).toBeNull()
        return ids
      }
      url = `${path}${path.includes("?") ? "&" : "?"}after=${page.body.next_cursor}`
    }
    throw new Error("more than 50 pages")
  })

layer(MessagingTestServer(), { excludeTestServices: true, timeout: 120_000 })("GET /messages and GET /conversations", (it) => {
  it.effect("a send and an inbound reply are stored history: listed newest first with the message record, and readable by id", () =>
    Effect.gen(function*() {
      const { chat, dev, key } = yield* setup("history")
      const sent = yield* send(key, { channel_id: chat, to: "15550001111", type: "text", text: "hello there" })
      expect(sent.status, sent.text).toBe(200)
      const injected = yield* inject(dev, { channel_id: chat, from: "15550001111", text: "hi back", profile_name: "Ada" })
      expect(injected.status, injected.text).toBe(202)
      const inbound = yield* eventually(Effect.map(
        request("GET", `${V1}/messages?direction=inbound&channel_id=${chat}`, { key }),
        (r) => (r.body.data.length > 0 ? r.body : undefined)
      ))
      const list = yield* request("GET", `${V1}/messages?channel_id=${chat}`, { key })
      expect(list.status, list.text).toBe(200)
      expect(list.body).toMatchObject({ has_more: false, next_cursor: null })
      const [reply, original] = list.body.data
      expect(reply).toEqual(inbound.data[0])
      expect(original).toEqual({
        id: expect.any(Number),
        platform_channel_id: chat,
        conversation_id: reply.conversation_id,
        contact_id: reply.contact_id,
        direction: "outbound",
        source: "api",
        type: "text",
        text: "hello there",
        payload: expect.any(Object),
        media_id: null,
        status: expect.stringMatching(/^(sent|delivered|read)$/),
        meta_message_id: sent.body.message_id,
        error: null,
        created_at: expect.any(String),
        status_updated_at: expect.any(String)
      })
      expect(reply).toMatchObject({ direction: "inbound", source: "contact", type: "text", text: "hi back", status: null })
      expect(reply.id).toBeGreaterThan(original.id)
      expect(list.text).not.toMatch(/access_token|EAA/)

      const one = yield* request("GET", `${V1}/messages/${original.id}`, { key })
      expect(one.status, one.text).toBe(200)
      expect(one.body.id).toBe(original.id)
      expect(one.body.meta_message_id).toBe(sent.body.message_id)

      const conversations = yield* request("GET", `${V1}/conversations?channel_id=${chat}`, { key })
      expect(conversations.status, conversations.text).toBe(200)
      expect(conversations.body.data).toHaveLength(1)
      expect(conversations.body.data[0]).toMatchObject({
        id: reply.conversation_id,
        platform_channel_id: chat,
        platform_contact_id: reply.contact_id,
        peer_id: "15550001111",
        status: "active",
        message_count: 2,
        inbound_count: 1,
        outbound_count: 1,
        last_message_direction: "inbound",
        last_message_preview: "hi back"
      })
      const conversation = yield* request("GET", `${V1}/conversations/${reply.conversation_id}`, { key })
      expect(conversation.body).toEqual(conversations.body.data[0])
    }))

  it.effect("every message filter narrows the list; values no message has give an empty page, not a 422", () =>
    Effect.gen(function*() {
      const dev = yield* signup("filters")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const one = yield* seedChannel(dev.accountId)
      const two = yield* seedChannel(dev.accountId)
      const a = yield* seedThread(dev.accountId, one, "1555000A", [
        { direction: "inbound", type: "text", created_at: "2026-01-01T10:00:00Z" },
        { direction: "outbound", type: "image", status: "delivered", created_at: "2026-01-02T10:00:00Z" },
        { direction: "outbound", type: "text", status: "failed", created_at: "2026-01-03T10:00:00Z" }
      ])
      const b = yield* seedThread(dev.accountId, two, "1555000B", [
        { direction: "inbound", type: "image", created_at: "2026-01-04T10:00:00Z" }
      ])
      const [a0, a1, a2] = a.messages
      const [b0] = b.messages
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<number | undefined>]> = [
        ["", [b0, a2, a1, a0]],
        [`channel_id=${one}`, [a2, a1, a0]],
        [`conversation_id=${b.conversation}`, [b0]],
        [`contact_id=${a.contact}`, [a2, a1, a0]],
        ["peer_id=1555000B", [b0]],
        ["direction=outbound", [a2, a1]],
        ["type=image", [b0, a1]],
        ["status=failed", [a2]],
        ["since=2026-01-02T10:00:00Z", [b0, a2, a1]],
        ["until=2026-01-02T10:00:00Z", [a0]],
        ["since=2026-01-02T00:00:00Z&until=2026-01-03T12:00:00%2B00:00", [a2, a1]],
        [`channel_id=${one}&type=image&direction=outbound&status=delivered`, [a1]],
        [`channel_id=${two}&direction=outbound`, []],
        ["direction=sideways", []],
        ["type=hologram", []],
        ["status=lost", []],
        ["peer_id=nobody", []],
        ["channel_id=999999999", []],
        ["conversation_id=999999999", []],
        ["contact_id=999999999", []]
      ]
      for (const [query, ids] of cases) {
        const reply = yield* request("GET", `${V1}/messages?${query}`, { key })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
      }
    }))

  it.effect("since and until outside the years Postgres stores (year 0000, a -23:59 offset, past 9999) filter, never 500", () =>
    Effect.gen(function*() {
      const dev = yield* signup("far-dates")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const channel = yield* seedChannel(dev.accountId)
      const t = yield* seedThread(dev.accountId, channel, "1555000F", [
        { created_at: "2026-01-01T10:00:00Z" },
        { created_at: "2026-01-02T10:00:00Z" }
      ])
      const all = [...t.messages].reverse()
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
        ["since=0000-01-01T00:00:00Z", all],
        ["until=0000-01-01T00:00:00Z", []],
        ["since=0001-01-01T00:30:00%2B01:00", all],
        ["since=2026-01-01T00:00:00-23:59", [t.messages[1]!]],
        ["until=2026-01-01T00:00:00-23:59", [t.messages[0]!]],
        ["since=9999-12-31T23:59:59-23:59", []],
        ["until=9999-12-31T23:59:59-23:59", all]
      ]
      for (const [query, ids] of cases) {
        const reply = yield* request("GET", `${V1}/messages?channel_id=${channel}&${query}`, { key })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
      }
    }))

  it.effect("pages of messages and of conversations follow next_cursor without a gap or a repeat, and before goes back", () =>
    Effect.gen(function*() {
      const dev = yield* signup("pages")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const channel = yield* seedChannel(dev.accountId)
      const thread = yield* seedThread(dev.accountId, channel, "15550007", Array.from({ length: 7 }, () => ({})))
      const newestFirst = [...thread.messages].reverse()
      expect(yield* walk(`${V1}/messages?limit=3`, key)).toEqual(newestFirst)
      expect(yield* walk(`${V1}/messages?limit=1&contact_id=${thread.contact}`, key)).toEqual(newestFirst)
      expect(yield* walk(`${V1}/messages?limit=200`, key)).toEqual(newestFirst)

      const first = yield* request("GET", `${V1}/messages?limit=3`, { key })
      const second = yield* request("GET", `${V1}/messages?limit=3&after=${first.body.next_cursor}`, { key })
      expect(idsOf(second.body)).toEqual(newestFirst.slice(3, 6))
      // The first page's cursor as `before`: the rows newer than its last row, nearest first, listed newest first.
      const back = yield* request("GET", `${V1}/messages?limit=3&before=${first.body.next_cursor}`, { key })
      expect(idsOf(back.body)).toEqual(newestFirst.slice(0, 2))
      expect(back.body).toMatchObject({ has_more: false, next_cursor: null })

      const conversations: Array<number> = []
      for (const peer of ["1555100", "1555101", "1555102", "1555103", "1555104"]) {
        conversations.push((yield* seedThread(dev.accountId, channel, peer, [{}])).conversation)
      }
      const all = [...conversations].reverse().concat(thread.conversation)
      expect(yield* walk(`${V1}/conversations?limit=2`, key)).toEqual(all)
    }))

  it.effect("conversation filters: channel_id, status and peer_id; an unknown status or peer is an empty page", () =>
    Effect.gen(function*() {
      const dev = yield* signup("conv-filters")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const one = yield* seedChannel(dev.accountId)
      const two = yield* seedChannel(dev.accountId)
      const a = yield* seedThread(dev.accountId, one, "1555200", [{}])
      const b = yield* seedThread(dev.accountId, two, "1555201", [{}])
      const ended = yield* request("PATCH", `${V1}/conversations/${b.conversation}`, { key, body: { status: "ended" } })
      expect(ended.status, ended.text).toBe(200)
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
        ["", [b.conversation, a.conversation]],
        [`channel_id=${one}`, [a.conversation]],
        ["status=active", [a.conversation]],
        ["status=ended", [b.conversation]],
        ["peer_id=1555201", [b.conversation]],
        [`channel_id=${one}&status=ended`, []],
        ["status=archived", []],
        ["peer_id=1555999", []],
        ["channel_id=999999999", []]
      ]
      for (const [query, ids] of cases) {
        const reply = yield* request("GET", `${V1}/conversations?${query}`, { key })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
      }
    }))

  it.effect("a malformed typed parameter, an unknown parameter or a foreign cursor is 422 at that parameter", () =>
    Effect.gen(function*() {
      const dev = yield* signup("bad-query")
      const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["messages?limit=abc", "limit"],
        ["messages?limit=0", "limit"],
        ["messages?limit=201", "limit"],
        ["messages?since=notadate", "since"],
        ["messages?until=2026-02-30T00:00:00Z", "until"],
        ["messages?channel_id=x", "channel_id"],
        ["messages?conversation_id=1.5", "conversation_id"],
        ["messages?contact_id=0x10", "contact_id"],
        ["messages?after=garbage", "after"],
        ["messages?colour=blue", "colour"],
        ["conversations?limit=abc", "limit"],
        ["conversations?channel_id=x", "channel_id"],
        ["conversations?before=garbage", "before"],
        ["conversations?direction=inbound", "direction"]
      ]
      for (const [path, param] of cases) {
        const reply = yield* request("GET", `${V1}/${path}`, { key })
        expect(reply.status, `${path}: ${reply.text}`).toBe(422)
        expect(reply.body.detail.map((d: { loc: ReadonlyArray<unknown> }) => d.loc), path).toContainEqual(["query", param])
      }
      for (const path of ["messages/abc", "conversations/abc"]) {
        const reply = yield* request("GET", `${V1}/${path}`, { key })
        expect(reply.status, `${path}: ${reply.text}`).toBe(422)
      }
    }))

  it.effect("another account's message and conversation are 404 like missing ones, and never listed", () =>
    Effect.gen(function*() {
      const owner = yield* signup("owner")
      const channel = yield* seedChannel(owner.accountId)
      const thread = yield* seedThread(owner.accountId, channel, "1555300", [{}])
      const stranger = yield* signup("stranger")
      const { key } = yield* createKey(stranger, { rate_limit_per_minute: 100000 })
      for (const path of [`messages/${thread.messages[0]}`, `conversations/${thread.conversation}`, "messages/999999999", "conversations/999999999"]) {
        const reply = yield* request("GET", `${V1}/${path}`, { key })
        expect(reply.status, path).toBe(404)
        expect(reply.body).toEqual({ detail: { code: "not_found", message: expect.any(String) } })
      }
      const patch = yield* request("PATCH", `${V1}/conversations/${thread.conversation}`, { key, body: { status: "ended" } })
      expect(patch.status).toBe(404)
      for (const path of [`messages?channel_id=${channel}`, `conversations?channel_id=${channel}`, `messages?contact_id=${thread.contact}`]) {
        const reply = yield* request("GET", `${V1}/${path}`, { key })
        expect(reply.status, path).toBe(200)
        expect(reply.body.data, path).toEqual([])
      }
    }))

  it.effect("read:messages and read:conversations read only their own resource, and never PATCH; manage:data does not read", () =>
    Effect.gen(function*() {
      const dev = yield* signup("scopes")
      const channel = yield* seedChannel(dev.accountId)
      const thread = yield* seedThread(dev.accountId, channel, "1555400", [{}])
      const keyWith = (scopes: ReadonlyArray<string>) =>
        Effect.map(createKey(dev, { scopes, rate_limit_per_minute: 100000 }), (k) => k.key)
      const readMessages = yield* keyWith(["read:messages"])
      const readConversations = yield* keyWith(["read:conversations"])
      const reads = yield* keyWith(["read:messages", "read:conversations", "read:contacts"])
      const manage = yield* keyWith(["manage:data"])
      const send = yield* keyWith(["send:messages"])
      const cases: ReadonlyArray<readonly [string, string, string, number, string?]> = [
        ["GET", `messages`, readMessages, 200],
        ["GET", `messages/${thread.messages[0]}`, readMessages, 200],
        ["GET", `conversations`, readMessages, 403, "read:conversations"],
        ["GET", `conversations`, readConversations, 200],
        ["GET", `conversations/${thread.conversation}`, readConversations, 200],
        ["GET", `messages`, readConversations, 403, "read:messages"],
        ["GET", `messages`, send, 403, "read:messages"],
        ["GET", `messages`, manage, 403, "read:messages"],
        ["GET", `conversations/${thread.conversation}`, manage, 403, "read:conversations"],
        ["PATCH", `conversations/${thread.conversation}`, reads, 403, "manage:data"],
        ["PATCH", `conversations/${thread.conversation}`, manage, 200]
      ]
      for (const [method, path, key, status, scope] of cases) {
        const reply = yield* request(method, `${V1}/${path}`, { key, ...(method === "PATCH" ? { body: { status: "ended" } } : {}) })
        expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(status)
        if (scope !== undefined) expect(reply.body.detail).toMatchObject({ code: "missing_scope", required_scope: scope })
      }
    }))

  it.effect("POST /messages still sends with send:messages beside the read routes on the same path", () =>
    Effect.gen(function*() {
      const { chat, key } = yield* setup("same-path")
      const sent = yield* send(key, { channel_id: chat, to: "15550002222", type: "text", text: "still sending" })
      expect(sent.status, sent.text).toBe(200)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`select 1 from messages where meta_message_id = ${sent.body.message_id}`
      expect(rows).toHaveLength(1)
    }))
})
