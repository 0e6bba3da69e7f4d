import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { eventually } from "../support/receiver.js"
import { MessagingTestServer, request, send, sharedSetup } from "./support.js"

const ctx = sharedSetup("txtp")

layer(MessagingTestServer(), { timeout: 60_000, excludeTestServices: true })("the stored text payload", (it) => {
  it.effect("a text's words are payload.text on chat and social, inbound and outbound (SPEC's name), never WhatsApp's body", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      for (const [channel, from] of [[s.chat, "15551230001"], [s.social, "1254459154680001"]] as const) {
        const injected = yield* request("POST", "/platform/dashboard/sandbox/inbound", {
          cookie: s.dev.cookie,
          body: { channel_id: channel, from, text: `hello on ${channel}` }
        })
        expect(injected.status, injected.text).toBe(202)
        const sent = yield* send(s.key, { channel_id: channel, to: from, type: "text", text: `answer on ${channel}` })
        expect(sent.status, sent.text).toBe(200)
        const texts = yield* eventually(Effect.map(
          request("GET", `/platform/v1/messages?channel_id=${channel}&type=text`, { key: s.key }),
          (r) => (r.body.data.length === 2 ? r.body.data as ReadonlyArray<any> : undefined)
        ))
        expect(texts.map((m) => [m.direction, m.text, m.payload.text, "body" in m.payload])).toEqual([
          ["outbound", `answer on ${channel}`, `answer on ${channel}`, false],
          ["inbound", `hello on ${channel}`, `hello on ${channel}`, false]
        ])
      }
    }))
})
