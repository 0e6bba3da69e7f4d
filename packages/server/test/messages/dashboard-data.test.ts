import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createKey, request, signup } from "../auth/support.js"
import { idsOf, seedChannel, seedThread } from "../support/data-plane.js"
import { eventually } from "../support/receiver.js"
import { inject } from "../support/sandbox.js"
import { MessagingTestServer, send, setup } from "./support.js"

const V1 = "/platform/v1"
const DASH = "/platform/dashboard"

/** Follows next_cursor (as `after`) from the first page to the end; the ids in page order. */
const walk = (path: string, auth: { key: string } | { cookie: string }) =>
  Effect.gen(function*() {
    const ids: Array<number> = []
    let url = path
    for (let pages = 0; pages < 50; pages++) {
      const page = yield* request("GET", url, auth)
      expect(page.status, page.text).toBe(200)
      ids.push(...idsOf(page.body))
      if (!page.body.has_more) return ids
      url = `${path}${path.includes("?") ? "&" : "?"}after=${page.body.next_cursor}`
    }
    throw new Error("more than 50 pages")
  })

/** A developer with a key and two seeded channels with threads (rows only: these tests are about the reads). */
const seeded = (label: string) =>
  Effect.gen(function*() {
    const dev = yield* signup(label)
    const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
    const one = yield* seedChannel(dev.accountId)
    const two = yield* seedChannel(dev.accountId)
    const a = yield* seedThread(dev.accountId, one, "1555000A", [
      { direction: "inbound", type: "text", created_at: "2026-01-01T10:00:00Z" },
      { direction: "outbound", type: "image", status: "delivered", created_at: "2026-01-02T10:00:00Z" },
      { direction: "outbound", type: "text", status: "failed", created_at: "2026-01-03T10:00:00Z" }
    ], { profile_name: "Ada Lovelace" })
    const b = yield* seedThread(dev.accountId, two, "1555000B", [
      { direction: "inbound", type: "image", created_at: "2026-01-04T10:00:00Z" }
    ], { profile_name: "Bob" })
    return { dev, key, one, two, a, b }
  })

layer(MessagingTestServer(), { excludeTestServices: true, timeout: 120_000 })("the console's data reads under /platform/dashboard", (it) => {
  it.effect("with the session cookie a send and an inbound reply read exactly as on the v1 routes with a key", () =>
    Effect.gen(function*() {
      const { chat, dev, key } = yield* setup("dash-data")
      const sent = yield* send(key, { channel_id: chat, to: "15550002222", type: "text", text: "hello from the API" })
      expect(sent.status, sent.text).toBe(200)
      const injected = yield* inject(dev, { channel_id: chat, from: "15550002222", text: "hello back", profile_name: "Grace" })
      expect(injected.status, injected.text).toBe(202)
      yield* eventually(Effect.map(
        request("GET", `${DASH}/messages?direction=inbound&channel_id=${chat}`, { cookie: dev.cookie }),
        (r) => (r.status === 200 && r.body.data.length > 0 ? r.body : undefined)
      ))
      const cookie = { cookie: dev.cookie }
      const messages = yield* request("GET", `${DASH}/messages?channel_id=${chat}`, cookie)
      expect(messages.status, messages.text).toBe(200)
      expect(messages.body).toEqual((yield* request("GET", `${V1}/messages?channel_id=${chat}`, { key })).body)
      expect(messages.body).toMatchObject({ has_more: false, next_cursor: null })
      const [reply, original] = messages.body.data
      expect(original).toMatchObject({ direction: "outbound", source: "api", text: "hello from the API", meta_message_id: sent.body.message_id })
      expect(reply).toMatchObject({ direction: "inbound", source: "contact", text: "hello back" })
      expect(messages.text).not.toMatch(/access_token|EAA/)

      const reads = [
        `messages/${original.id}`,
        `conversations?channel_id=${chat}`,
        `conversations/${reply.conversation_id}`,
        `messages?conversation_id=${reply.conversation_id}`,
        `contacts?channel_id=${chat}`,
        `contacts/${reply.contact_id}`
      ]
      for (const path of reads) {
        const dash = yield* request("GET", `${DASH}/${path}`, cookie)
        expect(dash.status, `${path}: ${dash.text}`).toBe(200)
        expect(dash.body, path).toEqual((yield* request("GET", `${V1}/${path}`, { key })).body)
      }
      const conversation = yield* request("GET", `${DASH}/conversations/${reply.conversation_id}`, cookie)
      expect(conversation.body).toMatchObject({ peer_id: "15550002222", message_count: 2, inbound_count: 1, outbound_count: 1 })
      const contact = yield* request("GET", `${DASH}/contacts/${reply.contact_id}`, cookie)
      expect(contact.body).toMatchObject({ id: reply.contact_id, profile_name: "Grace", platform_channel_id: chat })
    }))

  it.effect("an API key, no credential or a bad cookie is 401 on every dashboard read; the v1 reads stay key-only", () =>
    Effect.gen(function*() {
      const { dev, key, a } = yield* seeded("dash-auth")
      const paths = [
        "messages",
        `messages/${a.messages[0]}`,
        "conversations",
        `conversations/${a.conversation}`,
        "contacts",
        `contacts/${a.contact}`
      ]
      for (const path of paths) {
        for (const auth of [{ key }, {}, { cookie: "access_token_dev=forged.value" }]) {
          const reply = yield* request("GET", `${DASH}/${path}`, auth)
          expect(reply.status, `${path} ${JSON.stringify(auth)}: ${reply.text}`).toBe(401)
          expect(reply.body).toMatchObject({ detail: { code: "unauthorized" } })
        }
        const v1 = yield* request("GET", `${V1}/${path}`, { cookie: dev.cookie })
        expect(v1.status, `v1 ${path} with the cookie: ${v1.text}`).toBe(401)
      }
      // Read-only: no write method is routed under these paths.
      for (const [method, path] of [["PATCH", `conversations/${a.conversation}`], ["DELETE", `contacts/${a.contact}`], ["POST", "messages"]] as const) {
        const reply = yield* request(method, `${DASH}/${path}`, { cookie: dev.cookie, body: {} })
        expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(404)
      }
      const still = yield* request("GET", `${V1}/contacts/${a.contact}`, { key })
      expect(still.status, still.text).toBe(200)
    }))

  it.effect("every filter of the v1 lists narrows the dashboard lists the same way", () =>
    Effect.gen(function*() {
      const { dev, key, one, two, a, b } = yield* seeded("dash-filters")
      const [a0, a1, a2] = a.messages
      const [b0] = b.messages
      const messageCases: ReadonlyArray<readonly [string, ReadonlyArray<number | undefined>]> = [
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
        [`channel_id=${one}&type=image&direction=outbound&status=delivered`, [a1]],
        ["direction=sideways", []],
        ["conversation_id=999999999", []]
      ]
      for (const [query, ids] of messageCases) {
        const reply = yield* request("GET", `${DASH}/messages?${query}`, { cookie: dev.cookie })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
        expect(reply.body, query).toEqual((yield* request("GET", `${V1}/messages?${query}`, { key })).body)
      }
      const conversationCases: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
        ["", [b.conversation, a.conversation]],
        [`channel_id=${two}`, [b.conversation]],
        ["peer_id=1555000A", [a.conversation]],
        ["status=active", [b.conversation, a.conversation]],
        ["status=ended", []]
      ]
      for (const [query, ids] of conversationCases) {
        const reply = yield* request("GET", `${DASH}/conversations?${query}`, { cookie: dev.cookie })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
        expect(reply.body, query).toEqual((yield* request("GET", `${V1}/conversations?${query}`, { key })).body)
      }
      const contactCases: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
        ["", [b.contact, a.contact]],
        [`channel_id=${one}`, [a.contact]],
        ["q=ada", [a.contact]],
        ["q=%2B1555000B", [b.contact]],
        ["q=nobody", []]
      ]
      for (const [query, ids] of contactCases) {
        const reply = yield* request("GET", `${DASH}/contacts?${query}`, { cookie: dev.cookie })
        expect(reply.status, `${query}: ${reply.text}`).toBe(200)
        expect(idsOf(reply.body), query).toEqual(ids)
        expect(reply.body, query).toEqual((yield* request("GET", `${V1}/contacts?${query}`, { key })).body)
      }
    }))

  it.effect("cursor pages walk the whole list in both directions, as the v1 lists do", () =>
    Effect.gen(function*() {
      const { dev, key, a, b } = yield* seeded("dash-pages")
      const all = [b.messages[0], ...[...a.messages].reverse()]
      const cookie = { cookie: dev.cookie }
      expect(yield* walk(`${DASH}/messages?limit=1`, cookie)).toEqual(all)
      expect(yield* walk(`${DASH}/messages?limit=3`, cookie)).toEqual(yield* walk(`${V1}/messages?limit=3`, { key }))
      expect(yield* walk(`${DASH}/conversations?limit=1`, cookie)).toEqual([b.conversation, a.conversation])
      expect(yield* walk(`${DASH}/contacts?limit=1`, cookie)).toEqual([b.contact, a.contact])

      const first = yield* request("GET", `${DASH}/messages?limit=2`, cookie)
      expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) })
      const second = yield* request("GET", `${DASH}/messages?limit=2&after=${first.body.next_cursor}`, cookie)
      expect(idsOf(second.body)).toEqual(all.slice(2))
      expect(second.body).toEqual((yield* request("GET", `${V1}/messages?limit=2&after=${first.body.next_cursor}`, { key })).body)
      const back = yield* request("GET", `${DASH}/messages?limit=1&before=${first.body.next_cursor}`, cookie)
      expect(back.status, back.text).toBe(200)
      expect(idsOf(back.body)).toEqual([all[0]])
      expect(back.body).toEqual((yield* request("GET", `${V1}/messages?limit=1&before=${first.body.next_cursor}`, { key })).body)
    }))

  it.effect("another account's messages, conversations and contacts are never listed, and each is 404 like a missing one", () =>
    Effect.gen(function*() {
      const owner = yield* seeded("dash-owner")
      const stranger = yield* signup("dash-stranger")
      const cookie = { cookie: stranger.cookie }
      for (const list of ["messages", "conversations", "contacts", `messages?channel_id=${owner.one}`, `conversations?peer_id=1555000A`]) {
        const reply = yield* request("GET", `${DASH}/${list}`, cookie)
        expect(reply.status, `${list}: ${reply.text}`).toBe(200)
        expect(reply.body, list).toEqual({ data: [], has_more: false, next_cursor: null })
      }
      for (const path of [`messages/${owner.a.messages[0]}`, `conversations/${owner.a.conversation}`, `contacts/${owner.a.contact}`]) {
        const theirs = yield* request("GET", `${DASH}/${path}`, cookie)
        expect(theirs.status, `${path}: ${theirs.text}`).toBe(404)
        const missing = yield* request("GET", `${DASH}/${path.replace(/\d+$/, "999999999")}`, cookie)
        expect(missing.status, missing.text).toBe(404)
        expect(theirs.body).toEqual(missing.body)
        expect(theirs.body).toMatchObject({ detail: { code: "not_found" } })
        expect(theirs.text).not.toContain("1555000A")
      }
    }))

  it.effect("bad filters and ids are the v1 routes' 422 in SPEC §7's shape, naming the parameter, never a 500", () =>
    Effect.gen(function*() {
      const { dev, key } = yield* seeded("dash-bad")
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
        ["messages?limit=0", ["query", "limit"]],
        ["messages?limit=abc", ["query", "limit"]],
        ["messages?channel_id=abc", ["query", "channel_id"]],
        ["messages?since=yesterday", ["query", "since"]],
        ["messages?until=2026-13-45", ["query", "until"]],
        ["messages?after=not-a-cursor", ["query", "after"]],
        ["messages?verbose=1", ["query", "verbose"]],
        ["conversations?limit=201", ["query", "limit"]],
        ["conversations?channel_id=1.5", ["query", "channel_id"]],
        ["contacts?channel_id=x1", ["query", "channel_id"]],
        ["contacts?q=a%00b", ["query", "q"]],
        ["messages/abc", ["path", "message_id"]],
        ["conversations/abc", ["path", "conversation_id"]],
        ["contacts/0x10", ["path", "contact_id"]]
      ]
      for (const [path, loc] of cases) {
        const reply = yield* request("GET", `${DASH}/${path}`, { cookie: dev.cookie })
        const v1 = yield* request("GET", `${V1}/${path}`, { key })
        expect(reply.status, `${path}: ${reply.text}`).toBe(v1.status)
        expect(reply.status, `${path}: ${reply.text}`).toBeGreaterThanOrEqual(400)
        expect(reply.status, `${path}: ${reply.text}`).toBeLessThan(500)
        expect(reply.body, path).toEqual(v1.body)
        if (reply.status === 422) {
          expect(reply.body.detail, path).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]))
        }
      }
    }))
})
