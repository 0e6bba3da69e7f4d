import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { inboundText, signedBody } from "../fixtures/meta/inbound.js"
import { captureLogs } from "../support/log-capture.js"
import { baseUrl } from "../support/server.js"
import { createChannel, TestInbound } from "./support.js"

const { layer: Capture, lines } = captureLogs()

const post = (payload: unknown, requestId: string) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.promise(async () => {
      const signed = signedBody(payload)
      const res = await fetch(`${base}/webhook/incoming`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": signed.signature, "x-request-id": requestId },
        body: signed.body
      })
      return { status: res.status, requestId: res.headers.get("x-request-id"), body: await res.json() as unknown }
    }))

const linesOf = (requestId: string) => lines.filter((l) => l.annotations.request_id === requestId)

// The POST is answered either by an effect (routes not cached yet) or directly by
// the batch writer (routes cached): both must do the request context's duties.
layer(TestInbound().pipe(Layer.provide(Layer.merge(Capture, Logger.minimumLogLevel(LogLevel.Info)))), {
  excludeTestServices: true,
  timeout: 60_000
})("POST /webhook/incoming answered with and without a fiber", (it) => {
  it.effect("both paths answer 200 with the request id and write one access line; a failed statement is a 500 naming only the request id", () =>
    Effect.gen(function*() {
      const ch = yield* createChannel()
      const first = yield* post(inboundText(ch.line, "5511966665555", "uncached route"), "trace-inbound-first")
      const second = yield* post(inboundText(ch.line, "5511966665555", "cached route"), "trace-inbound-second")
      expect([first.status, second.status]).toEqual([200, 200])
      expect([first.requestId, second.requestId]).toEqual(["trace-inbound-first", "trace-inbound-second"])
      expect(second.body).toEqual({ status: "platform", forwarded: false })
      for (const id of ["trace-inbound-first", "trace-inbound-second"]) {
        expect(linesOf(id).filter((l) => l.message === "request")).toMatchObject([
          { level: "INFO", annotations: { method: "POST", path: "/webhook/incoming", status: 200 } }
        ])
      }
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ text: string }>`select text from messages where platform_channel_id = ${ch.channelId} order by id`
      expect(stored.map((m) => m.text)).toEqual(["uncached route", "cached route"])

      // The statement fails (its table is gone): the direct path turns the defect into a 500.
      yield* sql`alter table messages rename to messages_away`
      const failed = yield* post(inboundText(ch.line, "5511966665555", "no table"), "trace-inbound-failed").pipe(
        Effect.ensuring(Effect.orDie(sql`alter table messages_away rename to messages`))
      )
      expect(failed.status).toBe(500)
      expect(failed.requestId).toBe("trace-inbound-failed")
      expect(failed.body).toEqual({ detail: { code: "internal_error", message: "Internal server error", request_id: "trace-inbound-failed" } })
      expect(linesOf("trace-inbound-failed").map((l) => `${l.level} ${l.message.split(" ")[0]} ${l.message.split(" ")[1] ?? ""}`.trim()))
        .toEqual(["ERROR request failed", "INFO request"])
      expect(linesOf("trace-inbound-failed").find((l) => l.message === "request")?.annotations.status).toBe(500)
    }))
})
