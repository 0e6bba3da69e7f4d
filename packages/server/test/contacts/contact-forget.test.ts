import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BroadcastSender } from "../../src/broadcasts/broadcast-sender.js"
import { ContactWipe } from "../../src/contacts/contact-wipe.js"
import { SANDBOX_MAGIC_RECIPIENTS } from "../../src/upstream/sandbox/magic.js"
import { api, broadcastRow, draftWith, MessagingTestServer, recipientRows, request, sandboxSends, type Setup, setup, sql } from "../broadcasts/support.js"
import { send } from "../messages/support.js"

const V1 = "/platform/v1"
const wipe = <A, E>(f: (w: ContactWipe) => Effect.Effect<A, E>) =>
  Effect.provide(Effect.flatMap(ContactWipe, f), ContactWipe.Default)
const runSender = Effect.flatMap(BroadcastSender, (sender) => sender.runOnce())

/** A broadcast with `tos` loaded, sent and its send cycle run: every recipient sent or failed. */
const sent = (s: Setup, tos: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const id = yield* draftWith(s, tos)
    const reply = yield* api(s, "POST", `/${id}/send`)
    if (reply.status !== 202) throw new Error(`send ${reply.status} ${reply.text}`)
    yield* runSender
    return id
  })

const recipients = (s: Setup, id: number) =>
  Effect.gen(function*() {
    const listed = yield* api(s, "GET", `/${id}/recipients?limit=200`)
    expect(listed.status, listed.text).toBe(200)
    return listed.body as { data: Array<Record<string, any>>; counts: Record<string, number> }
  })

/** DELETE of the account's contact with phone `phone`. */
const deleteContact = (s: Setup, phone: string) =>
  Effect.gen(function*() {
    const found = yield* request("GET", `${V1}/contacts?q=${phone}`, { key: s.key })
    expect(found.status, found.text).toBe(200)
    expect(found.body.data).toHaveLength(1)
    const deleted = yield* request("DELETE", `${V1}/contacts/${found.body.data[0].id}`, { key: s.key })
    expect(deleted.status, deleted.text).toBe(202)
  })

/** Sets the status of the message a broadcast recipient was sent as (what a status callback would). */
const setMessageStatus = (channel: number, metaMessageId: string, status: string) =>
  Effect.flatMap(sql, (q) =>
    q`update messages set status = ${status}, error = ${status === "failed" ? JSON.stringify({ message: "undeliverable" }) : null}::jsonb
      where platform_channel_id = ${channel} and meta_message_id = ${metaMessageId}`)

// Status callbacks are held back (10 minutes) so that a message's status is what each test sets.
layer(MessagingTestServer({ SANDBOX_CALLBACK_DELAY_MS: "600000" }), { timeout: 120_000, excludeTestServices: true })(
  "contact deletion forgets the person in broadcast recipients and stored replies",
  (it) => {
    it.effect(
      "after DELETE /contacts and its wipe, the person's sent recipients read [redacted] with no message id, in every broadcast of the account and whatever the format loaded; their status, error, updated_at and the counts stay; other recipients, a recipient still pending and another account's recipient with the same number are unchanged",
      () =>
        Effect.gen(function*() {
          const s = yield* setup("forget-a")
          const t = yield* setup("forget-b")
          const q = yield* sql
          const person = "15550881001"
          const formatted = "+1 555 088 1001"
          const other = "15550881002"
          const first = yield* sent(s, [formatted, other])
          const second = yield* sent(s, [other, person])
          const theirs = yield* sent(t, [person])
          const waiting = yield* draftWith(s, [person])
          const [r1, r2] = [yield* recipientRows(first), yield* recipientRows(second)]
          yield* setMessageStatus(s.chat, r1[0]!.meta_message_id!, "read")
          yield* setMessageStatus(s.chat, r1[1]!.meta_message_id!, "delivered")
          yield* setMessageStatus(s.chat, r2[1]!.meta_message_id!, "failed")
          const before = [yield* recipients(s, first), yield* recipients(s, second), yield* recipients(t, theirs)]
          expect(before[0]!.counts).toEqual({ pending: 0, sent: 0, delivered: 1, read: 1, responded: 0, failed: 0 })
          expect(before[1]!.counts).toEqual({ pending: 0, sent: 1, delivered: 0, read: 0, responded: 0, failed: 1 })

          yield* deleteContact(s, person)
          // Bounded batches, each its own transaction: one, as if the worker then crashed, and the next run resumes.
          expect(yield* wipe((w) => w.step(1))).toEqual({ messages: 0, finished: false })
          expect(yield* wipe((w) => w.runOnce(1))).toMatchObject({ contacts: 1 })

          const after = [yield* recipients(s, first), yield* recipients(s, second), yield* recipients(t, theirs)]
          const redacted = (row: Record<string, any>) => ({ ...row, to: "[redacted]", message_id: null })
          // first: the person (loaded as formatted) read, other delivered; second: other sent, the person failed.
          expect(after[0]).toEqual({ ...before[0], data: [before[0]!.data[0], redacted(before[0]!.data[1]!)] })
          expect(after[1]).toEqual({ ...before[1], data: [redacted(before[1]!.data[0]!), before[1]!.data[1]] })
          expect(after[1]!.data[0]).toMatchObject({ status: "failed", error: "undeliverable" })
          for (const page of after.slice(0, 2)) {
            const text = JSON.stringify(page)
            for (const gone of [person, formatted, r1[0]!.meta_message_id!, r2[1]!.meta_message_id!]) expect(text).not.toContain(gone)
          }
          expect(after[2]).toEqual(before[2])
          expect(after[2]!.data[0]).toMatchObject({ to: person, message_id: expect.stringMatching(/^wamid\./) })
          // A recipient not sent yet is still to be sent to that number (a send after the DELETE starts a new contact).
          expect((yield* recipientRows(waiting)).map((r) => [r.to, r.status])).toEqual([[person, "pending"]])
          const [left] = yield* q<{ n: number }>`select count(*)::int as n from broadcast_recipients r
            join broadcasts b on b.id = r.broadcast_id
            where b.developer_account_id = ${s.dev.accountId} and r.status <> 'pending'
              and (r."to" in (${person}, ${formatted}) or r.to_key = ${person})`
          expect(left!.n).toBe(0)
        })
    )

    it.effect("two people of one broadcast deleted both read [redacted] there, each still counted in its state", () =>
      Effect.gen(function*() {
        const s = yield* setup("forget-two")
        const [a, b, c] = ["15550881031", "15550881032", "15550881033"]
        const id = yield* sent(s, [a, b, c])
        const before = yield* recipients(s, id)
        yield* deleteContact(s, a)
        yield* deleteContact(s, b)
        expect(yield* wipe((w) => w.runOnce())).toMatchObject({ contacts: 2 })
        const after = yield* recipients(s, id)
        expect(after.counts).toEqual(before.counts)
        expect(after.data.map((r) => [r.to, r.status])).toEqual([[c, "sent"], ["[redacted]", "sent"], ["[redacted]", "sent"]])
      }))

    it.effect(
      "a broadcast still sending when its recipient is redacted ends completed as before: the redacted recipient still counts as sent",
      () =>
        Effect.gen(function*() {
          const s = yield* setup("forget-finish")
          const q = yield* sql
          const person = "15550881011"
          const failing = SANDBOX_MAGIC_RECIPIENTS.reengagementRequired
          const id = yield* sent(s, [person])
          const [row] = yield* recipientRows(id)
          yield* setMessageStatus(s.chat, row!.meta_message_id!, "read")
          // The broadcast goes on sending: one more recipient, whose send will fail, is pending.
          yield* q`update broadcasts set status = 'sending', completed_at = null where id = ${id}`
          yield* q`insert into broadcast_recipients (broadcast_id, "to", to_key) values (${id}, ${failing}, ${failing})`
          yield* q`update broadcasts set recipient_count = recipient_count + 1 where id = ${id}`

          yield* deleteContact(s, person)
          expect(yield* wipe((w) => w.runOnce())).toMatchObject({ contacts: 1 })
          yield* runSender

          expect((yield* broadcastRow(id)).status).toBe("completed")
          const listed = yield* recipients(s, id)
          expect(listed.counts).toEqual({ pending: 0, sent: 0, delivered: 0, read: 1, responded: 0, failed: 1 })
          expect(listed.data.map((r) => [r.to, r.status])).toEqual([[failing, "failed"], ["[redacted]", "read"]])
        })
    )

    it.effect(
      "after DELETE /contacts and its wipe, a retry of a POST /messages to the person with its Idempotency-Key replays the reply with message_id [redacted] and sends nothing; a reply to someone else replays unchanged",
      () =>
        Effect.gen(function*() {
          const s = yield* setup("forget-replies")
          const q = yield* sql
          const person = "15550881021"
          const other = "15550881022"
          const body = (to: string) => ({ channel_id: s.chat, to, type: "text", text: `hello ${to}` })
          const mine = yield* send(s.key, body(person), { "idempotency-key": "to-the-person" })
          expect(mine.status, mine.text).toBe(200)
          expect(mine.body.message_id).toMatch(/^wamid\./)
          const theirs = yield* send(s.key, body(other), { "idempotency-key": "to-someone-else" })
          expect(theirs.status, theirs.text).toBe(200)

          yield* deleteContact(s, person)
          expect(yield* wipe((w) => w.runOnce())).toMatchObject({ contacts: 1 })

          const sends = yield* sandboxSends
          const replayed = yield* send(s.key, body(person), { "idempotency-key": "to-the-person" })
          expect(replayed.status, replayed.text).toBe(200)
          expect(replayed.headers.get("idempotent-replayed")).toBe("true")
          expect(replayed.body).toEqual({ channel_id: s.chat, message_id: "[redacted]", type: "text" })
          const again = yield* send(s.key, body(other), { "idempotency-key": "to-someone-else" })
          expect(again.headers.get("idempotent-replayed")).toBe("true")
          expect(again.text).toBe(theirs.text)
          expect(yield* sandboxSends).toBe(sends)
          const [left] = yield* q<{ n: number }>`select count(*)::int as n from idempotency_keys
            where developer_account_id = ${s.dev.accountId} and response_body like ${`%${mine.body.message_id}%`}`
          expect(left!.n).toBe(0)
        })
    )
  }
)
