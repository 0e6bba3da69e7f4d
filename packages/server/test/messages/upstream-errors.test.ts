import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { errorHandlers, GRAPH, makeRecorder, META_ERROR_FIXTURES, META_RESPONSES, successHandlers, VERSION } from "../fixtures/meta/index.js"
import { graphDeveloper, graphMock, once } from "../support/graph-mock.js"
import { MessagingTestServer, request, send, sql } from "./support.js"

// Only Graph traffic is mocked; the test's own requests to the loopback server pass through.
const msw = graphMock("bypass")

const TOKEN = "EAAGmswMessagingToken0123456789abcdef"

const ctx = once(graphDeveloper("msw", { token: TOKEN }))

layer(MessagingTestServer({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION }), {
  timeout: 120_000,
  excludeTestServices: true
})("upstream error envelopes of Meta → the send's 502 body", (it) => {
  it.effect("Meta's success answer is a 200 carrying Meta's message id, sent with the channel's token", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const rec = makeRecorder()
      msw.use(...successHandlers(rec))
      const reply = yield* send(s.key, { channel_id: s.chat, to: "+1 555 123 4567", type: "text", text: "hi" })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.message_id).toBe(META_RESPONSES.chatSend.messages[0]!.id)
      expect(rec.calls).toHaveLength(1)
      expect(rec.calls[0]!.url).toBe(`${GRAPH}/${VERSION}/106540352242922/messages`)
      expect(rec.calls[0]!.authorization).toBe(`Bearer ${TOKEN}`)
      expect(JSON.parse(rec.calls[0]!.body)).toMatchObject({ messaging_product: "whatsapp", to: "+1 555 123 4567", type: "text", text: { body: "hi" } })
    }))

  for (const fixture of META_ERROR_FIXTURES) {
    it.effect(`${fixture.name} (HTTP ${fixture.http_status}) is a 502 with error ${fixture.expected_body.error}, recorded as failed`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const rec = makeRecorder()
        msw.use(...errorHandlers(fixture, rec))
        const text = `fixture ${fixture.name}`
        const reply = yield* send(s.key, { channel_id: s.chat, to: "15551234567", type: "text", text })
        expect(reply.status, reply.text).toBe(502)
        expect(reply.body).toEqual(fixture.expected_body)
        expect(reply.text).not.toContain(TOKEN)
        expect(rec.calls).toHaveLength(1)
        const q = yield* sql
        const [row] = yield* q<{ status: string; error: unknown }>`select status, error from messages where text = ${text}`
        expect(row).toEqual({ status: "failed", error: fixture.expected_body })
      }))
  }

  it.effect("a failed mark-read is a 502 with the same envelope", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const fixture = META_ERROR_FIXTURES.find((f) => f.expected_body.meta_code === 100)!
      msw.use(...errorHandlers(fixture))
      const reply = yield* request("POST", "/platform/v1/messages/mark-read", { key: s.key, body: { channel_id: s.chat, message_id: "wamid.X" } })
      expect(reply.status).toBe(502)
      expect(reply.body).toEqual(fixture.expected_body)
    }))
})
