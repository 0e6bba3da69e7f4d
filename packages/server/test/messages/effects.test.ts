import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SANDBOX_MAGIC_RECIPIENTS } from "../../src/upstream/sandbox/magic.js"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { ENVELOPE_KEYS, formOf, MESSAGE_DATA_KEYS } from "../support/envelope-form.js"
import { MessagingTestServer, request, sandboxSends, send, setup, sharedSetup, sql } from "./support.js"

const ctx = sharedSetup("effects")

const eventsOf = (accountId: number, type: string) =>
  Effect.flatMap(sql, (q) =>
    q<{ envelope: any; text: string; conversation_peer: string | null }>`
      select envelope, envelope::text as text, conversation_peer from events
      where developer_account_id = ${accountId} and event_type = ${type} order by id`)

// Status callbacks are held back (10 min) so the recorded status is the send's own.
layer(MessagingTestServer({ SANDBOX_CALLBACK_DELAY_MS: "600000" }), { timeout: 120_000, excludeTestServices: true })("effects of a send", (it) => {
  it.effect("a send records the outbound message, contact, conversation counters and message.sent, never conversation.created", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const first = yield* send(s.key, { channel_id: s.chat, to: "+1 555 010 0001", type: "text", text: "hello" })
      const second = yield* send(s.key, { channel_id: s.chat, to: "15550100001", type: "image", media: { id: "1037543291543636", caption: "look" } })
      expect([first.status, second.status]).toEqual([200, 200])

      const messages = yield* q<any>`
        select * from messages where platform_channel_id = ${s.chat} and meta_message_id in (${first.body.message_id}, ${second.body.message_id}) order by id`
      expect(messages).toHaveLength(2)
      expect(messages[0]).toMatchObject({ direction: "outbound", source: "api", type: "text", text: "hello", status: "sent", error: null })
      expect(messages[1]).toMatchObject({ type: "image", text: "look", media_id: "1037543291543636", status: "sent" })
      expect(messages[1].payload).toEqual({ id: "1037543291543636", caption: "look" })
      expect(messages[0].conversation_id).toBe(messages[1].conversation_id)

      const [conversation] = yield* q<any>`select * from conversations where id = ${messages[0].conversation_id}`
      expect(conversation).toMatchObject({
        peer_id: "15550100001",
        message_count: 2,
        outbound_count: 2,
        inbound_count: 0,
        last_message_direction: "outbound",
        last_message_preview: "look",
        platform_contact_id: messages[0].contact_id
      })
      const [contact] = yield* q<any>`select * from contacts where id = ${messages[0].contact_id}`
      expect(contact).toMatchObject({ chat_id: "15550100001", platform_channel_id: s.chat })

      const sent = yield* eventsOf(s.dev.accountId, "message.sent")
      const mine = sent.filter((e) => [first.body.message_id, second.body.message_id].includes(e.envelope.data.meta_message_id))
      expect(mine).toHaveLength(2)
      expect(mine[0]!.conversation_peer).toBe("15550100001")
      expect(mine[0]!.envelope).toMatchObject({
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        event: "message.sent",
        api_version: "platform-v1",
        platform_channel_id: s.chat,
        data: { message_id: messages[0].id, conversation_id: conversation.id, direction: "outbound", source: "api", type: "text", status: "sent", has_media: false }
      })
      expect(mine[1]!.envelope.data).toMatchObject({ has_media: true, media_id: "1037543291543636" })
      // Stored as the bytes receivers get: compact, keys in SPEC §6.2 order.
      for (const e of mine) expect(formOf(e.text)).toEqual({ compact: true, keys: ENVELOPE_KEYS, dataKeys: MESSAGE_DATA_KEYS })
      expect(yield* eventsOf(s.dev.accountId, "conversation.created")).toHaveLength(0)
    }))

  it.effect("a social send keys the conversation and contact by the recipient's social id", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const reply = yield* send(s.key, { channel_id: s.social, to: "1254459154682919", type: "text", text: "hi" })
      expect(reply.status, reply.text).toBe(200)
      const [row] = yield* q<any>`
        select c.peer_id, k.social_id, k.chat_id from messages m join conversations c on c.id = m.conversation_id
        join contacts k on k.id = m.contact_id where m.meta_message_id = ${reply.body.message_id}`
      expect(row).toEqual({ peer_id: "1254459154682919", social_id: "1254459154682919", chat_id: null })
    }))

  it.effect("an upstream failure is 502 with the error envelope and the message recorded as failed, without counters or event", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const to = SANDBOX_MAGIC_RECIPIENTS.pairRateLimited
      const reply = yield* send(s.key, { channel_id: s.chat, to, type: "text", text: "again" })
      expect(reply.status).toBe(502)
      expect(reply.body).toEqual({
        error: "pair_rate_limited",
        meta_code: 131056,
        meta_subcode: null,
        meta_title: expect.any(String),
        message: expect.stringContaining("131056"),
        fbtrace_id: expect.any(String),
        hint: expect.stringContaining("same recipient")
      })
      const [failed] = yield* q<any>`
        select * from messages where platform_channel_id = ${s.chat} and status = 'failed' and text = 'again'`
      expect(failed).toMatchObject({ direction: "outbound", meta_message_id: null, conversation_id: null })
      expect(failed.error).toEqual(reply.body)
      const conversations = yield* q`select 1 from conversations where peer_id = ${to}`
      expect(conversations).toHaveLength(0)
      const sent = yield* eventsOf(s.dev.accountId, "message.sent")
      expect(sent.filter((e) => e.envelope.data.peer_id === to)).toHaveLength(0)
    }))

  it.effect("typing on a chat channel without context answers the peer's latest inbound message and records nothing", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const state = yield* SandboxState
      const peer = "15550100777"
      const [conv] = yield* q<{ id: number }>`
        insert into conversations (developer_account_id, platform_channel_id, peer_id, message_count, inbound_count)
        values (${s.dev.accountId}, ${s.chat}, ${peer}, 2, 2) returning id`
      yield* q`
        insert into messages (developer_account_id, platform_channel_id, conversation_id, direction, source, type, meta_message_id)
        values (${s.dev.accountId}, ${s.chat}, ${conv!.id}, 'inbound', 'contact', 'text', 'wamid.IN-older'),
               (${s.dev.accountId}, ${s.chat}, ${conv!.id}, 'inbound', 'contact', 'text', 'wamid.IN-latest')`
      const reply = yield* send(s.key, { channel_id: s.chat, to: peer, type: "typing" })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({ channel_id: s.chat, message_id: "", type: "typing" })
      expect(state.markedRead.at(-1)).toMatchObject({ message_id: "wamid.IN-latest", typing: true })
      const [counts] = yield* q<{ n: number; message_count: number }>`
        select (select count(*)::int from messages where conversation_id = ${conv!.id}) as n, message_count
        from conversations where id = ${conv!.id}`
      expect(counts).toEqual({ n: 2, message_count: 2 })
    }))

  const MARK_READ: ReadonlyArray<readonly [string, "chat" | "social", string]> = [
    ["chat: the inbound message id", "chat", "wamid.HBgLMTU1NTAxMDAwMDE"],
    ["social: the sender's social id", "social", "1254459154682919"]
  ]
  for (const [name, kind, messageId] of MARK_READ) {
    it.effect(`mark-read on ${name} is 200 {message_id, status: read}, reaches the upstream, records no message`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const q = yield* sql
        const state = yield* SandboxState
        const [before] = yield* q<{ n: number }>`select count(*)::int as n from messages`
        const reply = yield* request("POST", "/platform/v1/messages/mark-read", { key: s.key, body: { channel_id: s[kind], message_id: messageId } })
        expect(reply.status, reply.text).toBe(200)
        expect(reply.body).toEqual({ message_id: messageId, status: "read" })
        expect(state.markedRead.at(-1)).toMatchObject({ message_id: messageId, typing: false })
        const [after] = yield* q<{ n: number }>`select count(*)::int as n from messages`
        expect(after!.n).toBe(before!.n)
      }))
  }

  const MARK_READ_INVALID: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["an empty message_id", "", ["body", "message_id"]],
    ["a message_id of 256 characters", "x".repeat(256), ["body", "message_id"]]
  ]
  for (const [name, messageId, loc] of MARK_READ_INVALID) {
    it.effect(`mark-read with ${name} is 422 at ${loc.join(".")}`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const reply = yield* request("POST", "/platform/v1/messages/mark-read", { key: s.key, body: { channel_id: s.chat, message_id: messageId } })
        expect(reply.status).toBe(422)
        expect(reply.body.detail[0].loc).toEqual(loc)
      }))
  }

  it.effect("mark-read on another account's channel is 404 without an upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("mark-other")
      const state = yield* SandboxState
      const before = state.markedRead.length
      const reply = yield* request("POST", "/platform/v1/messages/mark-read", { key: s.key, body: { channel_id: other.chat, message_id: "wamid.X" } })
      expect(reply.status).toBe(404)
      expect(state.markedRead.length).toBe(before)
    }))

  it.effect("a send on a disconnected channel is 422 channel_unusable at once, even with the channel cached", () =>
    Effect.gen(function*() {
      const s = yield* setup("disconnect")
      const ok = yield* send(s.key, { channel_id: s.chat, to: "15550100002", type: "text", text: "cached" })
      expect(ok.status).toBe(200)
      const removed = yield* request("DELETE", `/platform/dashboard/channels/${s.chat}`, { cookie: s.dev.cookie })
      expect(removed.status).toBe(204)
      const before = yield* sandboxSends
      const reply = yield* send(s.key, { channel_id: s.chat, to: "15550100002", type: "text", text: "after" })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail.code).toBe("channel_unusable")
      expect(yield* sandboxSends).toBe(before)
    }))
})
