import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MessagingTestServer, send, sharedSetup, sql } from "./support.js"

/*
 * Upstream errors carry a `hint` (what to do) next to SPEC's 502 fields, end to end through
 * the sandbox's failure recipients (packages/server/src/upstream/sandbox/README.md).
 */

const ctx = sharedSetup("hints")

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("upstream error hints", (it) => {
  it.effect("a send to 15550131047 (outside the 24-hour window) is a 502 whose hint says to send a template", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const reply = yield* send(s.key, { channel_id: s.chat, to: "15550131047", type: "text", text: "hi" })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.body).toMatchObject({ error: "reengagement_required", meta_code: 131047 })
      // SPEC §7's fields are all there, unchanged; hint is one more.
      expect(Object.keys(reply.body).sort()).toEqual(["error", "fbtrace_id", "hint", "message", "meta_code", "meta_subcode", "meta_title"])
      expect(reply.body.hint).toContain("24 hours")
      expect(reply.body.hint).toContain("template")
    }))

  it.effect("a send to an ordinary recipient has no hint; a 15550131026 send, failed by its callback, records the error with a hint", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const ok = yield* send(s.key, { channel_id: s.chat, to: "15551234567", type: "text", text: "hi" })
      expect(ok.status).toBe(200)
      const text = "hint for 131026"
      const accepted = yield* send(s.key, { channel_id: s.chat, to: "15550131026", type: "text", text })
      expect(accepted.status, accepted.text).toBe(200)
      const db = yield* sql
      let error: Record<string, unknown> | undefined
      for (let i = 0; i < 200 && error === undefined; i++) {
        const [row] = yield* db<{ status: string; error: Record<string, unknown> | null }>`select status, error from messages where text = ${text}`
        if (row?.status === "failed" && row.error !== null) error = row.error
        else yield* Effect.sleep("50 millis")
      }
      expect(error).toMatchObject({ error: "undeliverable", meta_code: 131026 })
      expect(error?.hint).toContain("not be on WhatsApp")
    }))
})
