import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { eventually } from "../support/receiver.js"
import { MessagingTestServer, request, sharedSetup, sql } from "../messages/support.js"

const ctx = sharedSetup("tplcb")

/** An id a JavaScript number cannot hold: above 2^53 and changed by the round trip through Number. */
const roundedByNumber = (id: string) => BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER) && String(Number(id)) !== id

let counter = 0

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("template review callbacks of the sandbox", (it) => {
  it.effect("a template whose Meta id is above 2^53 is approved by the review callback, which carries the exact digits", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const state = yield* SandboxState
      const q = yield* sql
      // About one sandbox id in eighteen is above 2^53 and not a double: create templates until one is.
      let found: { id: number; meta_template_id: string } | undefined
      for (let i = 0; i < 400 && found === undefined; i++) {
        const reply = yield* request("POST", "/platform/v1/templates", {
          key: s.key,
          body: {
            channel_id: s.chat,
            name: `big_id_${Date.now().toString(36)}_${counter++}`,
            language_code: "en_US",
            category: "utility",
            body_text: "Your order has shipped"
          }
        })
        expect(reply.status, reply.text).toBe(200)
        if (roundedByNumber(reply.body.meta_template_id)) found = reply.body
      }
      expect(found).toBeDefined()
      const big = found!

      const approved = yield* eventually(Effect.map(
        q<{ meta_status: string }>`select meta_status from templates where id = ${big.id}`.pipe(Effect.orDie),
        (rows) => (rows[0]?.meta_status === "approved" ? rows[0] : undefined)
      ))
      expect(approved.meta_status).toBe("approved")
      // The row is approved when the platform commits, a moment before the simulator reads the answer to its POST.
      const posted = yield* eventually(Effect.sync(() => {
        const webhook = state.webhooks.find((w) => w.body?.includes(`"message_template_id":${big.meta_template_id},`))
        return webhook?.status === undefined ? undefined : webhook
      }))
      expect(posted.status).toBe(200)

      const got = yield* request("GET", `/platform/v1/templates/${big.id}`, { key: s.key })
      expect(got.body).toMatchObject({ meta_status: "approved", meta_template_id: big.meta_template_id })
    }))
})
