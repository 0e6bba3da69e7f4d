import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { connectChat, connectSocial, D, inboundRow, inject, receivedEvent, request, SandboxTestServer, setPlan, signup } from "../support/sandbox.js"

layer(SandboxTestServer(), { timeout: 60_000 })("POST /platform/dashboard/sandbox/inbound", (it) => {
  it.effect("a chat inbound is posted signed to /webhook/incoming and stored as an inbound message with message.received", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound")
      const channel = yield* connectChat(dev)
      expect(channel.status, channel.text).toBe(201)
      const state = yield* SandboxState
      const reply = yield* inject(dev, { channel_id: channel.body.channel_id, from: "15551234567", text: "hello from the sandbox", profile_name: "Ada" })
      expect(reply.status, reply.text).toBe(202)
      expect(reply.body).toEqual({ message_id: expect.stringMatching(/^wamid\./), inbound_enabled: true })
      const row = yield* inboundRow(channel.body.channel_id, reply.body.message_id)
      expect(row).toMatchObject({ direction: "inbound", source: "contact", type: "text", text: "hello from the sandbox", developer_account_id: dev.accountId })
      const event = yield* receivedEvent(channel.body.channel_id, reply.body.message_id)
      expect(event.event_type).toBe("message.received")
      expect(event.envelope.data).toMatchObject({ direction: "inbound", type: "text", text: "hello from the sandbox" })
      // Meta's shape: the WABA the channel was connected with, the number's metadata.
      expect(state.lineOf(channel.body.phone_number_id).waba_id).toBe(channel.body.waba_id)
    }))

  it.effect("on a channel whose inbound is switched off the answer says inbound_enabled false (the platform drops the message)", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound-off")
      const channel = yield* connectChat(dev)
      const off = yield* request("PATCH", `/platform/v1/channels/${channel.body.channel_id}/inbound`, { cookie: dev.cookie, body: { enabled: false } })
      expect(off.status, off.text).toBe(200)
      const reply = yield* inject(dev, { channel_id: channel.body.channel_id, from: "15551234569", text: "nobody listens" })
      expect(reply.status, reply.text).toBe(202)
      expect(reply.body).toEqual({ message_id: expect.stringMatching(/^wamid\./), inbound_enabled: false })
    }))

  it.effect("echo: true posts the owner's chat-app message as an smb_message_echoes change, stored as an echo with message.echo", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound-echo")
      yield* setPlan(dev, "lite")
      const channel = yield* connectChat(dev)
      const reply = yield* inject(dev, { channel_id: channel.body.channel_id, from: "15551234570", text: "written in the app", echo: true })
      expect(reply.status, reply.text).toBe(202)
      const row = yield* inboundRow(channel.body.channel_id, reply.body.message_id)
      expect(row).toMatchObject({ source: "app_echo", text: "written in the app" })
      const sql = yield* SqlClient.SqlClient
      const events = yield* sql<{ event_type: string }>`
        select event_type from events where platform_channel_id = ${channel.body.channel_id}
          and (envelope->'data'->>'meta_message_id') = ${reply.body.message_id}`.pipe(Effect.orDie)
      expect(events.map((e) => e.event_type)).toEqual(["message.echo"])
      const social = yield* connectSocial(dev)
      const refused = yield* inject(dev, { channel_id: social.body.channel_id, from: "1254459154682919", text: "x", echo: true })
      expect(refused.status).toBe(422)
      expect(refused.body.detail[0]).toMatchObject({ loc: ["body", "echo"] })
    }))

  it.effect("a typed chat inbound (type + payload) is stored with its type", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound-typed")
      const channel = yield* connectChat(dev)
      const reply = yield* inject(dev, {
        channel_id: channel.body.channel_id,
        from: "15551234568",
        type: "location",
        payload: { latitude: 52.52, longitude: 13.405, name: "Berlin" }
      })
      expect(reply.status, reply.text).toBe(202)
      const row = yield* inboundRow(channel.body.channel_id, reply.body.message_id)
      expect(row).toMatchObject({ direction: "inbound", type: "location" })
    }))

  it.effect("a social inbound is routed by the Instagram account id and stored", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound-social")
      const channel = yield* connectSocial(dev)
      expect(channel.status, channel.text).toBe(201)
      const reply = yield* inject(dev, { channel_id: channel.body.channel_id, from: "1254459154682919", text: "hi on instagram" })
      expect(reply.status, reply.text).toBe(202)
      expect(reply.body.message_id).toMatch(/^m_/)
      const row = yield* inboundRow(channel.body.channel_id, reply.body.message_id)
      expect(row).toMatchObject({ direction: "inbound", text: "hi on instagram" })
      yield* receivedEvent(channel.body.channel_id, reply.body.message_id)
    }))

  it.effect("another account's channel, an unknown and a disconnected channel are 404 and nothing is posted", () =>
    Effect.gen(function*() {
      const owner = yield* signup("owner")
      const intruder = yield* signup("intruder")
      yield* setPlan(owner, "lite")
      const channel = yield* connectChat(owner)
      const state = yield* SandboxState
      const posted = state.webhooks.length
      const foreign = yield* inject(intruder, { channel_id: channel.body.channel_id, from: "15550001111", text: "x" })
      expect(foreign.status).toBe(404)
      expect(foreign.body).toEqual({ detail: { code: "not_found", message: "channel not found" } })
      expect((yield* inject(owner, { channel_id: 99_999_999, from: "15550001111", text: "x" })).status).toBe(404)
      const gone = yield* connectChat(owner)
      expect((yield* request("DELETE", `${D}/channels/${gone.body.channel_id}`, { cookie: owner.cookie })).status).toBe(204)
      expect((yield* inject(owner, { channel_id: gone.body.channel_id, from: "15550001111", text: "x" })).status).toBe(404)
      const sql = yield* SqlClient.SqlClient
      const [count] = yield* sql<{ n: number }>`
        select count(*)::int as n from messages where platform_channel_id in (${channel.body.channel_id}, ${gone.body.channel_id})`
      expect(count!.n).toBe(0)
      expect(state.webhooks.length).toBe(posted)
    }))

  it.effect("a body with neither text nor type, or a type without payload, is 422 at the field", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound-422")
      const channel = yield* connectChat(dev)
      const none = yield* inject(dev, { channel_id: channel.body.channel_id, from: "15550001111" })
      expect(none.status).toBe(422)
      expect(none.body.detail[0]).toMatchObject({ loc: ["body", "text"], msg: "give text, or type and payload" })
      const noPayload = yield* inject(dev, { channel_id: channel.body.channel_id, from: "15550001111", type: "image" })
      expect(noPayload.status).toBe(422)
      expect(noPayload.body.detail[0].loc).toEqual(["body", "payload"])
      const extra = yield* inject(dev, { channel_id: channel.body.channel_id, from: "15550001111", text: "x", bogus: 1 })
      expect(extra.status).toBe(422)
    }))

  it.effect("inbound is validated like a send: known types per channel kind, non-empty text, lengths in characters", () =>
    Effect.gen(function*() {
      const dev = yield* signup("inbound-rules")
      yield* setPlan(dev, "lite")
      const chat = (yield* connectChat(dev)).body.channel_id
      const social = (yield* connectSocial(dev)).body.channel_id
      const state = yield* SandboxState
      const posted = state.webhooks.length
      const refused: ReadonlyArray<[number, Record<string, unknown>, ReadonlyArray<string>, RegExp]> = [
        [chat, { type: "bogus", payload: {} }, ["body", "type"], /Expected/],
        [chat, { text: "" }, ["body", "text"], /must not be empty/],
        [chat, { type: "text", payload: { body: "" } }, ["body", "payload", "body"], /non-empty body/],
        [chat, { text: "a".repeat(4097) }, ["body", "text"], /at most 4096 characters/],
        [chat, { type: "image", text: "a caption?", payload: { link: "https://example.com/a.jpg" } }, ["body", "text"], /payload/],
        [chat, { text: "hi", payload: { body: "hello" } }, ["body", "payload"], /not both/],
        [chat, { type: "image", payload: "https://example.com/a.jpg" }, ["body", "payload"], /image object/],
        [chat, { type: "contacts", payload: [] }, ["body", "payload"], /non-empty list/],
        [chat, { type: "share", payload: { url: "https://example.com" } }, ["body", "type"], /chat \(WhatsApp\) channel's users do not send share/],
        [social, { type: "sticker", payload: { id: "1" } }, ["body", "type"], /social \(Instagram\) channel's users do not send sticker/],
        [social, { text: "a".repeat(1000) }, ["body", "text"], /at most 999 characters/],
        [chat, { text: "hi", profile_name: "  " }, ["body", "profile_name"], /only whitespace/],
        [chat, { from: " ", text: "hi" }, ["body", "from"], /only whitespace/],
        [chat, { text: "hi", context_message_id: "  " }, ["body", "context_message_id"], /only whitespace/]
      ]
      for (const [channel_id, fields, loc, msg] of refused) {
        const reply = yield* inject(dev, { channel_id, from: "15550001111", ...fields })
        expect(reply.status, JSON.stringify(fields).slice(0, 80)).toBe(422)
        expect(reply.body.detail).toHaveLength(1)
        expect(reply.body.detail[0].loc).toEqual(loc)
        expect(reply.body.detail[0].msg).toMatch(msg)
      }
      expect(state.webhooks.length).toBe(posted)
      // Characters, not UTF-16 units: 4096 emoji fit a WhatsApp text, 999 an Instagram one.
      const emoji = yield* inject(dev, { channel_id: chat, from: "15550001111", text: "😀".repeat(4096) })
      expect(emoji.status, emoji.text).toBe(202)
      expect((yield* inboundRow(chat, emoji.body.message_id)).text).toBe("😀".repeat(4096))
      const socialEmoji = yield* inject(dev, { channel_id: social, from: "1254459154682919", text: "😀".repeat(999) })
      expect(socialEmoji.status, socialEmoji.text).toBe(202)
      const contacts = yield* inject(dev, {
        channel_id: chat,
        from: "15550001111",
        type: "contacts",
        payload: [{ name: { formatted_name: "Ada" }, phones: [{ phone: "+15550002222" }] }]
      })
      expect(contacts.status, contacts.text).toBe(202)
      expect(yield* inboundRow(chat, contacts.body.message_id)).toMatchObject({ type: "contacts" })
      const share = yield* inject(dev, { channel_id: social, from: "1254459154682919", type: "share", payload: { url: "https://example.com" } })
      expect(share.status, share.text).toBe(202)
    }))

  it.effect("the route takes the dashboard cookie only", () =>
    Effect.gen(function*() {
      const bare = yield* request("POST", `${D}/sandbox/inbound`, { body: { channel_id: 1, from: "1", text: "x" } })
      expect(bare.status).toBe(401)
    }))
})

layer(SandboxTestServer({ UPSTREAM: "meta" }), { timeout: 60_000 })("sandbox inbound with UPSTREAM=meta", (it) => {
  it.effect("the route is 404 not_found even for the caller's own channel, and the simulator is not mounted", () =>
    Effect.gen(function*() {
      const dev = yield* signup("meta")
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ id: number }>`
        insert into platform_channels (developer_account_id, type, phone_number_id, waba_id)
        values (${dev.accountId}, 'chat', '106540352242922', '102290129340398') returning id`
      const reply = yield* inject(dev, { channel_id: row!.id, from: "15550001111", text: "x" })
      expect(reply.status).toBe(404)
      expect(reply.body.detail.code).toBe("not_found")
      expect((yield* request("GET", "/__sandbox/graph/v23.0/106540352242922")).status).toBe(404)
    }))
})
