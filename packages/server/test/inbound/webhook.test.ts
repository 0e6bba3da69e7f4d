import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  echoChange,
  everyMessageType,
  failedStatusError,
  inboundText,
  instagramMessage,
  messagesChange,
  qualityUpdate,
  signedBody,
  statusCallback,
  templateStatus,
  textMessage,
  waEnvelope,
  wamid
} from "../fixtures/meta/inbound.js"
import { baseUrl } from "../support/server.js"
import { ParkedStatuses } from "../../src/inbound/parked.js"
import { channelChanged } from "../../src/inbound/channel-directory.js"
import { PARKED_PREFIX } from "../../src/inbound/statement.js"
import { ENVELOPE_KEYS, formOf, MESSAGE_DATA_KEYS } from "../support/envelope-form.js"
import { createChannel, postInbound, TestInbound } from "./support.js"

const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(query(sql)))

const eventsOf = (accountId: number) =>
  rows<{ event_type: string; envelope: any; text: string; conversation_peer: string | null }>((sql) => sql`
    select event_type, envelope, envelope::text as text, conversation_peer from events
    where developer_account_id = ${accountId} order by id`)

/** An outbound message as the send path stores it, for status callbacks to find. */
const sentMessage = (channelId: number, accountId: number, peer: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [conv] = yield* sql<{ id: number }>`
      insert into conversations (developer_account_id, platform_channel_id, peer_id)
      values (${accountId}, ${channelId}, ${peer}) returning id`
    const id = wamid()
    yield* sql`
      insert into messages (developer_account_id, platform_channel_id, conversation_id, direction, source, type, text, status, meta_message_id)
      values (${accountId}, ${channelId}, ${conv!.id}, 'outbound', 'api', 'text', 'hello', 'sent', ${id})`
    return id
  }).pipe(Effect.orDie)

const statusOf = (mid: string) =>
  rows<{ status: string; error: unknown }>((sql) => sql`select status, error from messages where meta_message_id = ${mid}`).pipe(
    Effect.map((r) => r[0])
  )

layer(TestInbound(), { excludeTestServices: true })("/webhook/incoming", (it) => {
  it.effect("GET answers the handshake with the challenge verbatim as text/plain, otherwise 403 handshake_refused in DESIGN's error shape", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const ok = yield* Effect.promise(() =>
        fetch(`${base}/webhook/incoming?hub.mode=subscribe&hub.verify_token=sandbox-verify-token&hub.challenge=1158201444`)
      )
      expect(ok.status).toBe(200)
      expect(ok.headers.get("content-type")).toContain("text/plain")
      expect(yield* Effect.promise(() => ok.text())).toBe("1158201444")
      for (const query of [
        "hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1",
        "hub.mode=unsubscribe&hub.verify_token=sandbox-verify-token&hub.challenge=1",
        "hub.mode=subscribe&hub.challenge=1"
      ]) {
        const res = yield* Effect.promise(() => fetch(`${base}/webhook/incoming?${query}`))
        expect(res.status).toBe(403)
        expect(res.headers.get("content-type")).toContain("application/json")
        expect(yield* Effect.promise(() => res.json())).toEqual({
          detail: {
            code: "handshake_refused",
            message: "hub.mode must be subscribe and hub.verify_token must be the app's verify token (META_VERIFY_TOKEN)"
          }
        })
      }
    }))

  it.effect("a POST body over 10 MiB is 413 payload_too_large in DESIGN's error shape, declared or streamed", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const max = 10 * 1024 * 1024
      const expected = {
        detail: { code: "payload_too_large", message: `The request body is larger than ${max} bytes`, max_bytes: max }
      }
      const declared = yield* Effect.promise(() =>
        fetch(`${base}/webhook/incoming`, { method: "POST", headers: { "content-type": "application/json" }, body: new Uint8Array(max + 1) })
      )
      expect(declared.status).toBe(413)
      expect(yield* Effect.promise(() => declared.json())).toEqual(expected)
      // Without a Content-Length (chunked): counted while read.
      const chunk = new Uint8Array(1024 * 1024)
      const streamed = yield* Effect.promise(() =>
        fetch(`${base}/webhook/incoming`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: new ReadableStream({
            start(controller) {
              for (let i = 0; i < 11; i++) controller.enqueue(chunk)
              controller.close()
            }
          }),
          duplex: "half"
        } as RequestInit)
      )
      expect(streamed.status).toBe(413)
      expect(yield* Effect.promise(() => streamed.json())).toEqual(expected)
    }))

  it.effect("the signature over Meta's escaped wire bytes is accepted; re-encoded JSON with that signature is 401 and stores nothing", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const payload = inboundText(ch.line, "5511988887777", "Ação já! 😀 مرحبا 日本語 https://x.y/z")
      const wire = yield* postInbound(payload)
      expect(wire.sent).toContain("\\u00e7")
      expect(wire.sent).toContain("\\ud83d\\ude00")
      expect(wire.sent).toContain("\\/")
      expect(wire.status).toBe(200)

      const other = inboundText(ch.line, "5511988887777", "Ação já! 😀 outra")
      const escaped = signedBody(other)
      // The same JSON re-encoded (UTF-8, no escapes) under the signature of the escaped bytes.
      const reencoded = yield* postInbound(other, { body: JSON.stringify(other), signature: escaped.signature })
      expect(reencoded.status).toBe(401)
      const missing = yield* postInbound(other, { signature: null })
      expect(missing.status).toBe(401)
      const count = yield* rows<{ n: number }>((sql) => sql`
        select count(*)::int as n from messages where platform_channel_id = ${ch.channelId}`)
      expect(count[0]!.n).toBe(1)
      const [msg] = yield* rows<{ text: string }>((sql) => sql`select text from messages where platform_channel_id = ${ch.channelId}`)
      expect(msg!.text).toBe("Ação já! 😀 مرحبا 日本語 https://x.y/z")
    }))

  it.effect("traffic for no platform channel is 200 ignored", () =>
    Effect.gen(function*() {
      const res = yield* postInbound(inboundText({ waba_id: "1", phone_number_id: "999000999" }, "1555", "hi"))
      expect(res).toMatchObject({ status: 200, body: { status: "ignored" } })
      const odd = yield* postInbound({ object: "permissions", entry: [] })
      expect(odd).toMatchObject({ status: 200, body: { status: "ignored" } })
    }))

  it.effect("an inbound message upserts the contact, opens the conversation once and writes the events", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peer = "5511977776666"
      expect((yield* postInbound(inboundText(ch.line, peer, "primeira", { name: "Zé" }))).status).toBe(200)
      expect((yield* postInbound(inboundText(ch.line, peer, "segunda", { name: "José" }))).status).toBe(200)
      const [contact] = yield* rows<any>((sql) => sql`select * from contacts where platform_channel_id = ${ch.channelId}`)
      expect(contact).toMatchObject({ chat_id: peer, phone: peer, profile_name: "José" })
      const [conv] = yield* rows<any>((sql) => sql`select * from conversations where platform_channel_id = ${ch.channelId}`)
      expect(conv).toMatchObject({ peer_id: peer, message_count: 2, inbound_count: 2, outbound_count: 0, last_message_direction: "inbound", last_message_preview: "segunda", platform_contact_id: contact.id })
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type)).toEqual(["conversation.created", "message.received", "message.received"])
      const received = events[1]!.envelope
      expect(received).toMatchObject({
        event: "message.received",
        api_version: "platform-v1",
        developer_account_id: ch.accountId,
        platform_channel_id: ch.channelId,
        data: { conversation_id: conv.id, peer_id: peer, direction: "inbound", source: "contact", type: "text", text: "primeira", has_media: false, media_id: null, status: null }
      })
      expect(received.id).toMatch(/^evt_[0-9a-f]{32}$/)
      expect(events[1]!.conversation_peer).toBe(peer)
      expect(events[0]!.envelope.data).toMatchObject({ conversation_id: conv.id, peer_id: peer, status: "active" })
      expect(events[0]!.conversation_peer).toBeNull()
      // Stored as the bytes receivers get: compact, keys in SPEC §6.2 order.
      expect(formOf(events[0]!.text)).toEqual({
        compact: true,
        keys: ENVELOPE_KEYS,
        dataKeys: ["conversation_id", "peer_id", "status", "message_count", "last_active_at"]
      })
      expect(formOf(events[1]!.text)).toEqual({ compact: true, keys: ENVELOPE_KEYS, dataKeys: MESSAGE_DATA_KEYS })
    }))

  it.effect("U+0000 in a message (Postgres refuses it in jsonb) is stored as U+FFFD; the text \\u0000 stays as sent", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peer = "5511977775555"
      expect((yield* postInbound(inboundText(ch.line, peer, "a\u0000b"))).status).toBe(200)
      expect((yield* postInbound(inboundText(ch.line, peer, "path C:\\u0000"))).status).toBe(200)
      const stored = yield* rows<{ text: string; payload: any }>((sql) => sql`
        select text, payload from messages where platform_channel_id = ${ch.channelId} order by id`)
      expect(stored.map((m) => m.text)).toEqual(["a\uFFFDb", "path C:\\u0000"])
      expect(stored[0]!.payload).toEqual({ text: "a\uFFFDb" })
      const events = yield* eventsOf(ch.accountId)
      expect(events.filter((e) => e.event_type === "message.received").map((e) => e.envelope.data.text)).toEqual(["a\uFFFDb", "path C:\\u0000"])
    }))

  it.effect("every inbound message type is stored with its payload", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peer = "5511966665555"
      const messages = everyMessageType(peer)
      const res = yield* postInbound(waEnvelope([{
        id: ch.line.waba_id,
        changes: [messagesChange(ch.line, { contacts: [{ profile: { name: "Ana" }, wa_id: peer }], messages })]
      }]))
      expect(res.status).toBe(200)
      const stored = yield* rows<any>((sql) => sql`
        select type, text, media_id, payload, direction, source from messages where platform_channel_id = ${ch.channelId} order by id`)
      expect(stored.map((m) => m.type)).toEqual(messages.map((m) => m.type))
      const byIndex = (i: number) => stored[i]!
      expect(byIndex(0).text).toBe("Olá, tudo bem? 😀 مرحبا こんにちは")
      expect(byIndex(1)).toMatchObject({ text: "Foto da promoção", media_id: "1479537139650973" })
      expect(byIndex(3).payload).toMatchObject({ voice: true, id: "1479537139650975" })
      expect(byIndex(6).payload).toMatchObject({ latitude: -23.5505199, name: "São Paulo" })
      expect(byIndex(7).payload.contacts[0].name.formatted_name).toBe("José Silva")
      expect(byIndex(8).text).toBe("Sim ✅")
      expect(byIndex(9).text).toBe("Entrega")
      expect(byIndex(10)).toMatchObject({ text: "Parar promoções", payload: { payload: "STOP", context: { id: "wamid.ctx" } } })
      expect(byIndex(11).text).toBe("❤️")
      expect(byIndex(12)).toMatchObject({ text: null, payload: { message_id: "wamid.reacted" } })
      expect(byIndex(13).payload.product_items[0].quantity).toBe(2)
      expect(byIndex(14).payload.referral).toMatchObject({ source_type: "ad", ctwa_clid: "ARAkLk" })
      expect(byIndex(15).payload.errors[0].code).toBe(131051)
      expect(byIndex(16).payload).toEqual({ foo: "bar" })
      for (const m of stored) expect(m).toMatchObject({ direction: "inbound", source: "contact" })
      const events = yield* eventsOf(ch.accountId)
      expect(events.filter((e) => e.event_type === "message.received")).toHaveLength(messages.length)
      expect(events.filter((e) => e.event_type === "conversation.created")).toHaveLength(1)
    }))

  it.effect("duplicate POSTs produce one message and one event", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const payload = inboundText(ch.line, "5511955554444", "só uma vez")
      for (let i = 0; i < 3; i++) expect((yield* postInbound(payload)).status).toBe(200)
      const [count] = yield* rows<{ n: number }>((sql) => sql`
        select count(*)::int as n from messages where platform_channel_id = ${ch.channelId}`)
      expect(count!.n).toBe(1)
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type)).toEqual(["conversation.created", "message.received"])
      const [conv] = yield* rows<any>((sql) => sql`select message_count from conversations where platform_channel_id = ${ch.channelId}`)
      expect(conv.message_count).toBe(1)
    }))

  it.effect("concurrent POSTs opening the same conversation give one conversation with exact counters", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peer = "5511944443333"
      const results = yield* Effect.forEach(
        Array.from({ length: 8 }, (_, i) => inboundText(ch.line, peer, `msg ${i}`)),
        (p) => postInbound(p),
        { concurrency: "unbounded" }
      )
      for (const r of results) expect(r.status).toBe(200)
      const convs = yield* rows<any>((sql) => sql`select message_count from conversations where platform_channel_id = ${ch.channelId}`)
      expect(convs).toEqual([{ message_count: 8 }])
      const events = yield* eventsOf(ch.accountId)
      expect(events.filter((e) => e.event_type === "conversation.created")).toHaveLength(1)
    }))

  it.effect("out-of-order statuses (read, then sent, then delivered) leave read; failed is final; unknown values are kept", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peer = "5511933332222"
      const mid = yield* sentMessage(ch.channelId, ch.accountId, peer)
      for (const s of ["read", "sent", "delivered"]) {
        expect((yield* postInbound(statusCallback(ch.line, mid, s, peer))).status).toBe(200)
      }
      expect((yield* statusOf(mid))!.status).toBe("read")
      expect((yield* postInbound(statusCallback(ch.line, mid, "played", peer))).status).toBe(200)
      expect((yield* statusOf(mid))!.status).toBe("played")
      expect((yield* postInbound(statusCallback(ch.line, mid, "read", peer))).status).toBe(200)
      expect((yield* statusOf(mid))!.status).toBe("played")

      const failing = yield* sentMessage(ch.channelId, ch.accountId, "5511933330000")
      yield* postInbound(statusCallback(ch.line, failing, "failed", "5511933330000", { errors: [failedStatusError] }))
      yield* postInbound(statusCallback(ch.line, failing, "delivered", "5511933330000"))
      const failed = yield* statusOf(failing)
      expect(failed!.status).toBe("failed")
      expect(failed!.error).toMatchObject({ meta_code: 131026, meta_title: "Message undeliverable" })

      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type)).toEqual(["message.read", "message.failed"])
      for (const e of events) {
        expect(formOf(e.text)).toEqual({ compact: true, keys: ENVELOPE_KEYS, dataKeys: [...MESSAGE_DATA_KEYS, "error"] })
      }
      expect(events[0]!.envelope.data).toMatchObject({ status: "read", peer_id: peer, direction: "outbound", source: "api", meta_message_id: mid })
      // `error` is the classification, as in the send's 502 body: one switch serves both.
      expect(events[1]!.envelope.data.error).toEqual({
        error: "undeliverable",
        meta_code: 131026,
        meta_subcode: null,
        meta_title: "Message undeliverable",
        message: "Message failed to send because the recipient's phone number is not a WhatsApp number.",
        fbtrace_id: null,
        hint: expect.stringContaining("not be on WhatsApp")
      })
    }))

  it.effect("several statuses for one message in one POST settle on the furthest", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const mid = yield* sentMessage(ch.channelId, ch.accountId, "5511922221111")
      const payload = waEnvelope([{
        id: ch.line.waba_id,
        changes: [messagesChange(ch.line, {
          statuses: ["read", "delivered", "sent"].map((status) => ({ id: mid, status, timestamp: "1700000000", recipient_id: "5511922221111" }))
        })]
      }])
      expect((yield* postInbound(payload)).status).toBe(200)
      expect((yield* statusOf(mid))!.status).toBe("read")
    }))

  it.effect("a status for a message the platform never sent is 200 and emits nothing", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const res = yield* postInbound(statusCallback(ch.line, wamid(), "delivered"))
      expect(res.status).toBe(200)
      expect(yield* eventsOf(ch.accountId)).toEqual([])
    }))

  it.effect("an echo is stored outbound with source app_echo, opens the conversation and emits message.echo", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const res = yield* postInbound(waEnvelope([{ id: ch.line.waba_id, changes: [echoChange(ch.line, "5511911110000", "Oi, sou eu 👋")] }]))
      expect(res.status).toBe(200)
      const [m] = yield* rows<any>((sql) => sql`select direction, source, text from messages where platform_channel_id = ${ch.channelId}`)
      expect(m).toEqual({ direction: "outbound", source: "app_echo", text: "Oi, sou eu 👋" })
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type)).toEqual(["conversation.created", "message.echo"])
      expect(events[1]!.envelope.data).toMatchObject({ source: "app_echo", direction: "outbound", peer_id: "5511911110000" })
    }))

  it.effect("one POST with entries for several channels routes each part to its channel", () =>
    Effect.gen(function*() {
      const a = yield* createChannel()
      const b = yield* createChannel()
      const ig = yield* createChannel({ type: "social" })
      const payload = waEnvelope([
        { id: a.line.waba_id, changes: [messagesChange(a.line, { messages: [textMessage("5511900000001", "para A")] })] },
        { id: b.line.waba_id, changes: [messagesChange(b.line, { messages: [textMessage("5511900000002", "para B"), textMessage("5511900000003", "também B")] })] },
        { id: "999", changes: [messagesChange({ waba_id: "999", phone_number_id: "0000" }, { messages: [textMessage("1", "ninguém")] })] }
      ])
      expect((yield* postInbound(payload)).status).toBe(200)
      const counts = yield* rows<{ platform_channel_id: number; n: number }>((sql) => sql`
        select platform_channel_id, count(*)::int as n from messages
        where platform_channel_id in (${a.channelId}, ${b.channelId}) group by 1 order by 1`)
      expect(counts).toEqual([{ platform_channel_id: a.channelId, n: 1 }, { platform_channel_id: b.channelId, n: 2 }])

      expect((yield* postInbound(instagramMessage(ig.socialId, "6234567890123456", "Olá do Instagram ✨"))).status).toBe(200)
      const [m] = yield* rows<any>((sql) => sql`select type, text, direction from messages where platform_channel_id = ${ig.channelId}`)
      expect(m).toEqual({ type: "text", text: "Olá do Instagram ✨", direction: "inbound" })
      const [k] = yield* rows<any>((sql) => sql`select social_id, chat_id from contacts where platform_channel_id = ${ig.channelId}`)
      expect(k).toEqual({ social_id: "6234567890123456", chat_id: null })
      expect((yield* postInbound(instagramMessage(ig.socialId, "6234567890123456", "eco", undefined, true))).status).toBe(200)
      const echoes = yield* rows<any>((sql) => sql`select source from messages where platform_channel_id = ${ig.channelId} and direction = 'outbound'`)
      expect(echoes).toEqual([{ source: "app_echo" }])
    }))

  it.effect("the inbound kill-switch stops processing for that channel", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      yield* rows((sql) => sql`update platform_channels set inbound_enabled = false where id = ${ch.channelId} returning id`)
      expect((yield* postInbound(inboundText(ch.line, "5511900000009", "desligado"))).status).toBe(200)
      const [count] = yield* rows<{ n: number }>((sql) => sql`select count(*)::int as n from messages where platform_channel_id = ${ch.channelId}`)
      expect(count!.n).toBe(0)
    }))

  it.effect("template status updates resolve one row and emit only on a real change; quality updates persist", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const [tpl] = yield* rows<{ id: number }>((sql) => sql`
        insert into templates (developer_account_id, platform_channel_id, name, language_code, category, meta_status, meta_template_id)
        values (${ch.accountId}, ${ch.channelId}, 'promo_verao', 'pt_BR', 'MARKETING', 'pending', '1234567890123')
        returning id`)
      for (const event of ["APPROVED", "APPROVED"]) {
        expect((yield* postInbound(templateStatus(ch.line.waba_id, "1234567890123", "promo_verao", event))).status).toBe(200)
      }
      yield* postInbound(templateStatus(ch.line.waba_id, "1234567890123", "promo_verao", "REJECTED", "INVALID_FORMAT"))
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.envelope.data)).toEqual([
        { template_id: tpl!.id, name: "promo_verao", language_code: "pt_BR", previous_status: "pending", status: "approved", meta_template_id: "1234567890123", rejection_reason: null },
        { template_id: tpl!.id, name: "promo_verao", language_code: "pt_BR", previous_status: "approved", status: "rejected", meta_template_id: "1234567890123", rejection_reason: "INVALID_FORMAT" }
      ])
      yield* postInbound(qualityUpdate(ch.line.waba_id, ch.line.display_phone_number, "FLAGGED"))
      const [q] = yield* rows<any>((sql) => sql`select quality_rating from platform_channels where id = ${ch.channelId}`)
      expect(q.quality_rating).toBe("RED")
    }))

  it.effect("at the inbound quota the next user message is refused with the quota body; statuses still pass", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel({ plan: "free" })
      yield* rows((sql) => sql`
        insert into usage_counters (developer_account_id, period, metric, used)
        values (${ch.accountId}, date_trunc('month', now() at time zone 'utc')::date, 'inbound_messages', 999) returning used`)
      const last = yield* postInbound(inboundText(ch.line, "5511900000010", "a milésima"))
      expect(last.body).toMatchObject({ status: "platform" })
      const over = yield* postInbound(inboundText(ch.line, "5511900000010", "uma a mais"))
      expect(over).toEqual({ status: 200, body: { status: "platform", forwarded: false, reason: "inbound_quota_exceeded" }, sent: over.sent })
      const mid = yield* sentMessage(ch.channelId, ch.accountId, "5511900000011")
      const status = yield* postInbound(statusCallback(ch.line, mid, "delivered"))
      expect(status.body).toMatchObject({ status: "platform" })
      expect((yield* statusOf(mid))!.status).toBe("delivered")
      const [u] = yield* rows<any>((sql) => sql`select used from usage_counters where developer_account_id = ${ch.accountId}`)
      expect(u.used).toBe(1000)
    }))

  it.effect("far below the cap, messages counted after the fact still reach the usage counter exactly", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel({ plan: "pro" })
      for (let i = 0; i < 6; i++) expect((yield* postInbound(inboundText(ch.line, "5511900000020", `n${i}`))).status).toBe(200)
      yield* postInbound(inboundText(ch.line, "5511900000020", "n0 again", { id: "wamid.same" }))
      yield* postInbound(inboundText(ch.line, "5511900000020", "n0 again", { id: "wamid.same" }))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 400)))
      const [u] = yield* rows<any>((sql) => sql`select used from usage_counters where developer_account_id = ${ch.accountId}`)
      expect(u.used).toBe(7)
    }))

  it.effect("a channel connected after its identifier was cached as unknown is routed at once; a disconnected one stops at once", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const ch = yield* createChannel()
      const line = { ...ch.line, phone_number_id: `7${ch.line.phone_number_id}` }
      const before = yield* postInbound(inboundText(line, "15551230001", "too early"))
      expect(before).toMatchObject({ status: 200, body: { status: "ignored" } })
      // What Channels.connect* does after its commit (the miss above is cached for seconds otherwise).
      const [added] = yield* sql<{ id: number }>`
        insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, display_phone_number)
        values (${ch.accountId}, 'chat', 'second', ${line.phone_number_id}, ${line.waba_id}, ${line.display_phone_number})
        returning id`.pipe(Effect.orDie)
      yield* channelChanged()
      const routed = yield* postInbound(inboundText(line, "15551230001", "now routed"))
      expect(routed).toMatchObject({ status: 200, body: { status: "platform" } })
      const stored = yield* rows<{ n: number }>((sql) => sql`
        select count(*)::int as n from messages where platform_channel_id = ${added!.id}`)
      expect(stored[0]!.n).toBe(1)
      // What Channels.disconnect does after its commit.
      yield* sql`update platform_channels set is_active = false, status = 'disconnected' where id = ${added!.id}`.pipe(Effect.orDie)
      yield* channelChanged(added!.id)
      const after = yield* postInbound(inboundText(line, "15551230001", "after disconnect"))
      expect(after).toMatchObject({ status: 200, body: { status: "ignored" } })
      const still = yield* rows<{ n: number }>((sql) => sql`
        select count(*)::int as n from messages where platform_channel_id = ${added!.id}`)
      expect(still[0]!.n).toBe(1)
    }))

  it.effect("a status for a not-yet-recorded message is parked without an event; the sweep applies it once the row exists and drops expired ones", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const ch = yield* createChannel()
      const peer = "5511900000030"
      const mid = wamid()
      const lost = wamid()
      for (const s of ["delivered", "read"]) expect((yield* postInbound(statusCallback(ch.line, mid, s, peer))).status).toBe(200)
      expect((yield* postInbound(statusCallback(ch.line, lost, "read", peer))).status).toBe(200)
      expect(yield* eventsOf(ch.accountId)).toEqual([])
      const parked = yield* rows<{ meta_message_id: string; status: string }>((sql) => sql`
        select meta_message_id, status from parked_statuses where platform_channel_id = ${ch.channelId} order by id`)
      expect(parked).toEqual([{ meta_message_id: mid, status: "delivered" }, { meta_message_id: mid, status: "read" }, { meta_message_id: lost, status: "read" }])
      // The row a concurrent send wrote without seeing the parked statuses.
      const [conv] = yield* sql<{ id: number }>`
        insert into conversations (developer_account_id, platform_channel_id, peer_id) values (${ch.accountId}, ${ch.channelId}, ${peer})
        returning id`.pipe(Effect.orDie)
      yield* sql`
        insert into messages (developer_account_id, platform_channel_id, conversation_id, direction, source, type, text, status, meta_message_id)
        values (${ch.accountId}, ${ch.channelId}, ${conv!.id}, 'outbound', 'api', 'text', 'hello', 'sent', ${mid})`.pipe(Effect.orDie)
      yield* sql`update parked_statuses set expires_at = now() - interval '1 second' where meta_message_id = ${lost}`.pipe(Effect.orDie)
      const sweep = yield* Effect.provide(Effect.flatMap(ParkedStatuses, (p) => p.sweepOnce), ParkedStatuses.Default)
      expect(sweep).toEqual({ expired: 1, applied: 2, events: 2 })
      expect((yield* statusOf(mid))!.status).toBe("read")
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type)).toEqual(["message.delivered", "message.read"])
      expect(events[1]!.envelope.data).toMatchObject({ status: "read", peer_id: peer, meta_message_id: mid, direction: "outbound" })
      for (const e of events) {
        expect(formOf(e.text)).toEqual({ compact: true, keys: ENVELOPE_KEYS, dataKeys: [...MESSAGE_DATA_KEYS, "error"] })
      }
      expect(yield* rows((sql) => sql`select 1 from parked_statuses where platform_channel_id = ${ch.channelId}`)).toEqual([])
      const again = yield* Effect.provide(Effect.flatMap(ParkedStatuses, (p) => p.sweepOnce), ParkedStatuses.Default)
      expect(again).toEqual({ expired: 0, applied: 0, events: 0 })
    }))

  it.effect("send-opened conversation (no conversation.created), then inbound: one conversation.created; more and duplicates add none", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const peer = "5511900000031"
      yield* sentMessage(ch.channelId, ch.accountId, peer)
      const first = inboundText(ch.line, peer, "oi", { id: wamid() })
      for (let i = 0; i < 2; i++) expect((yield* postInbound(first)).status).toBe(200)
      expect((yield* postInbound(inboundText(ch.line, peer, "e aí", { id: wamid() }))).status).toBe(200)
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type)).toEqual(["conversation.created", "message.received", "message.received"])
    }))

  it.effect("a messages change with a status or message lacking its id is 200: the well-formed items are applied, the body forwarded", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel({ webhookUrl: "https://hooks.example.com/raw" })
      const peer = "5511900001111"
      const mid = yield* sentMessage(ch.channelId, ch.accountId, peer)
      const payload = waEnvelope([{
        id: ch.line.waba_id,
        changes: [messagesChange(ch.line, {
          messages: [{ from: peer, timestamp: "1700000000", type: "text", text: { body: "no id" } }, textMessage(peer, "with id")],
          statuses: [{ status: "read", timestamp: "1700000000" }, { id: mid, status: "delivered", timestamp: "1700000000", recipient_id: peer }]
        })]
      }])
      const answer = yield* postInbound(payload)
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.body).toEqual({ status: "platform", forwarded: true })
      expect((yield* statusOf(mid))!.status).toBe("delivered")
      const inbound = yield* rows<{ text: string }>((sql) => sql`
        select text from messages where platform_channel_id = ${ch.channelId} and direction = 'inbound'`)
      expect(inbound).toEqual([{ text: "with id" }])
      const forwarded = yield* rows<{ body: string }>((sql) => sql`
        select body from platform_deliveries where platform_channel_id = ${ch.channelId}`)
      expect(forwarded.map((f) => JSON.parse(f.body))).toEqual([payload])
      const events = yield* eventsOf(ch.accountId)
      expect(events.map((e) => e.event_type).sort()).toEqual(["conversation.created", "message.delivered", "message.received"])
    }))
})

/** Issue 39: a validly signed body Postgres could not store, or not of Meta's shape, was a 500 that Meta retried for days. */
layer(TestInbound(), { excludeTestServices: true })("/webhook/incoming with bodies Meta does not document", (it) => {
  const forwardsOf = (channelId: number) =>
    rows<{ status: string; body: string; last_error: string | null; attempts: number }>((sql) => sql`
      select status, body, last_error, attempts from platform_deliveries where platform_channel_id = ${channelId} order by id`)

  it.effect("a text whose body holds a lone surrogate is stored and announced with U+FFFD; the raw forward keeps the escape as sent", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel({ webhookUrl: "https://hooks.example.com/raw" })
      const peer = "5511977774444"
      const payload = inboundText(ch.line, peer, "a\ud800b \udc00 😀")
      const answer = yield* postInbound(payload)
      expect(answer.sent).toContain("\\ud800")
      expect(answer).toMatchObject({ status: 200, body: { status: "platform", forwarded: true } })
      expect((yield* postInbound(payload)).status).toBe(200)
      const stored = yield* rows<{ text: string; payload: any }>((sql) => sql`
        select text, payload from messages where platform_channel_id = ${ch.channelId}`)
      expect(stored).toEqual([{ text: "a\uFFFDb \uFFFD 😀", payload: { text: "a\uFFFDb \uFFFD 😀" } }])
      const events = yield* eventsOf(ch.accountId)
      expect(events.filter((e) => e.event_type === "message.received").map((e) => e.envelope.data.text)).toEqual(["a\uFFFDb \uFFFD 😀"])
      const [forward] = yield* forwardsOf(ch.channelId)
      expect(forward!.body).toContain("a\\ud800b \\udc00 😀")
      expect(forward!.last_error ?? "").not.toContain(PARKED_PREFIX)
    }))

  it.effect("U+0000 and a lone surrogate in a payload's keys are stored as U+FFFD", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const message = { ...textMessage("5511977773333", "keys"), text: { body: "keys", "a\u0000": 1, "b\ud800": 2 } }
      const answer = yield* postInbound(waEnvelope([{ id: ch.line.waba_id, changes: [messagesChange(ch.line, { messages: [message] })] }]))
      expect(answer.status).toBe(200)
      const [stored] = yield* rows<{ payload: any }>((sql) => sql`select payload from messages where platform_channel_id = ${ch.channelId}`)
      expect(stored!.payload).toEqual({ text: "keys", "a\uFFFD": 1, "b\uFFFD": 2 })
    }))

  const value = (line: { phone_number_id: string }, v: Record<string, unknown>) => ({
    field: "messages",
    value: { messaging_product: "whatsapp", metadata: { phone_number_id: line.phone_number_id }, ...v }
  })

  it.effect.each([
    {
      name: "value.messages as an object",
      change: (line: { phone_number_id: string }) => value(line, { messages: { from: "1555", id: "wamid.obj", type: "text" } }),
      reason: "entry[0].changes[0].value.messages is not an array"
    },
    {
      name: "value.statuses as a string",
      change: (line: { phone_number_id: string }) => value(line, { statuses: "delivered" }),
      reason: "entry[0].changes[0].value.statuses is not an array"
    },
    {
      name: "value.contacts as a number",
      change: (line: { phone_number_id: string }) => value(line, { contacts: 7, messages: [textMessage("5511977772222", "kept")] }),
      reason: "entry[0].changes[0].value.contacts is not an array"
    },
    {
      name: "a message whose id and from are numbers",
      change: (line: { phone_number_id: string }) => value(line, { messages: [{ from: 5511977771111, id: 42, timestamp: 1, type: "text", text: { body: "x" } }] }),
      reason: "entry[0].changes[0].value.messages[0] lacks a string id, from or type"
    },
    {
      name: "a status whose id is an object",
      change: (line: { phone_number_id: string }) => value(line, { statuses: [{ id: { a: 1 }, status: "read" }] }),
      reason: "entry[0].changes[0].value.statuses[0] lacks a string id or status"
    }
  ])("$name is 200, parked: a failed delivery-log row naming the reason, forwarded as it came where raw forward is on", ({ change, reason }) =>
    Effect.gen(function*() {
      const plain = yield* createChannel()
      const forwarding = yield* createChannel({ webhookUrl: "https://hooks.example.com/raw" })
      for (const ch of [plain, forwarding]) {
        const payload = waEnvelope([{ id: ch.line.waba_id, changes: [change(ch.line)] }])
        const answer = yield* postInbound(payload)
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        expect(answer.body).toMatchObject({ status: "platform" })
        const forwards = yield* forwardsOf(ch.channelId)
        expect(forwards).toHaveLength(1)
        expect(JSON.parse(forwards[0]!.body)).toEqual(payload)
        if (ch === plain) {
          expect(forwards[0]).toMatchObject({ status: "failed", attempts: 0, last_error: `${PARKED_PREFIX}${reason}` })
        } else {
          expect(forwards[0]!.status).not.toBe("failed")
        }
      }
      // The well-formed message beside a wrong part is stored all the same.
      const kept = yield* rows<{ text: string }>((sql) => sql`select text from messages where platform_channel_id = ${plain.channelId}`)
      expect(kept.map((m) => m.text)).toEqual(reason.includes("contacts") ? ["kept"] : [])
    }))

  it.effect("account-level and social parts of the wrong shape are parked for the channel the ids name", () =>
    Effect.gen(function*() {
      const chat = yield* createChannel()
      const social = yield* createChannel({ type: "social" })
      const cases = [
        [chat, { object: "whatsapp_business_account", entry: [{ id: chat.line.waba_id, changes: [{ field: "message_template_status_update", value: {} }] }] },
          "entry[0].changes[0].value lacks the strings of a template status update (event, name, language, id)"],
        [chat, { object: "whatsapp_business_account", entry: [{ id: chat.line.waba_id, changes: { field: "messages" } }] },
          "entry[0].changes is not an array"],
        [social, { object: "instagram", entry: [{ id: social.socialId, messaging: [{ message: { mid: "m1", text: "x" } }] }] },
          "entry[0].messaging[0] lacks a string sender.id or recipient.id"],
        [social, { object: "instagram", entry: [{ id: social.socialId, messaging: [{ sender: { id: "1" }, recipient: { id: social.socialId }, reaction: { emoji: 1 } }] }] },
          "entry[0].messaging[0].reaction lacks a string mid or action"]
      ] as const
      for (const [ch, payload, reason] of cases) {
        const answer = yield* postInbound(payload)
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        const forwards = yield* forwardsOf(ch.channelId)
        expect(forwards.at(-1)).toMatchObject({ status: "failed", last_error: `${PARKED_PREFIX}${reason}` })
      }
    }))

  it.effect("a body nested deeper than 256 levels is 200 ignored (it could never be stored); one that is not JSON stays 400", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const deep = "[".repeat(300) + "]".repeat(300)
      const body = JSON.stringify(inboundText(ch.line, "5511977770000", "deep")).replace("\"deep\"", deep)
      expect(yield* postInbound(null, { body })).toMatchObject({ status: 200, body: { status: "ignored" } })
      expect((yield* postInbound(null, { body: "{" })).status).toBe(400)
    }))
})
