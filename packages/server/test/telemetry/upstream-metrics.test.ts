import { FetchHttpClient } from "@effect/platform"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { delay, http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { AppConfig } from "../../src/config.js"
import { registry } from "../../src/telemetry/metrics.js"
import type { ChannelCredentials } from "../../src/upstream/credentials.js"
import { Upstream } from "../../src/upstream/upstream.js"
import { GRAPH, META_RESPONSES, VERSION } from "../fixtures/meta/index.js"
import { parseExposition, total } from "./support.js"

const server = setupServer()
beforeAll(() => server.listen({ onUnhandledRequest: "error" }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

const chat: ChannelCredentials = {
  kind: "chat",
  id: 21,
  phone_number_id: "106540352242933",
  waba_id: "102290129340399",
  access_token: Redacted.make("EAAGmswMetricsToken0123456789abcdef")
}

const MetaLive = Upstream.layerWith({ timeoutMs: 300, uploadTimeoutMs: 300, retryBaseMs: 5, retries: 2 }).pipe(
  Layer.provideMerge(AppConfig.layerWith({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION })),
  Layer.provideMerge(FetchHttpClient.layer)
)

const metaError = (code: number, status = 400) =>
  HttpResponse.json({ error: { message: "(#x) refused", type: "OAuthException", code, fbtrace_id: "AbCdEf" } }, { status })

const send = Effect.flatMap(Upstream, (u) => Effect.either(u.sendMessage(chat, { to: "15551234567", type: "text", text: "hi" })))
const profile = Effect.flatMap(Upstream, (u) => Effect.either(u.getBusinessProfile(chat)))

const read = Effect.map(Effect.promise(() => registry.metrics()), parseExposition)

describe("upstream metrics", () => {
  it.live.each([
    ["answered", () => HttpResponse.json(META_RESPONSES.chatSend), send, "messages.send", "ok", "none", 1],
    ["Meta's 131047", () => metaError(131047), send, "messages.send", "reengagement_required", "131047", 1],
    ["a code Meta does not document", () => metaError(4242424), send, "messages.send", "unknown", "other", 1],
    ["no answer within the deadline (a send is not retried)", async () => {
      await delay(1000)
      return HttpResponse.json(META_RESPONSES.chatSend)
    }, send, "messages.send", "timeout", "none", 1],
    ["a GET answered 500 (retried twice: each attempt counts)", () => metaError(1, 500), profile, "business.profile_get", "server", "1", 3]
  ] as const)("a call %s counts by operation, outcome and Meta code, with its latency", ([, answer, call, operation, outcome, code, attempts]) =>
    Effect.gen(function*() {
      server.use(
        http.post(`${GRAPH}/${VERSION}/:pnid/messages`, answer),
        http.get(`${GRAPH}/${VERSION}/:pnid/whatsapp_business_profile`, answer)
      )
      const before = yield* read
      yield* call
      const after = yield* read
      const labels = { operation, outcome, meta_code: code }
      expect(total(after, "platform_upstream_requests_total", labels) - total(before, "platform_upstream_requests_total", labels)).toBe(attempts)
      const count = (m: typeof after) => total(m, "platform_upstream_request_duration_seconds_count", { operation })
      expect(count(after) - count(before)).toBe(attempts)
    }).pipe(Effect.provide(MetaLive)), { timeout: 20_000 })
})
