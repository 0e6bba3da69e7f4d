import { FetchHttpClient } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import { http, HttpResponse, delay } from "msw"
import { AppConfig } from "../../src/config.js"
import type { ChannelCredentials } from "../../src/upstream/credentials.js"
import { toSendErrorBody } from "../../src/upstream/errors.js"
import { Upstream } from "../../src/upstream/upstream.js"
import {
  errorHandlers,
  GRAPH,
  LOOKASIDE,
  makeRecorder,
  META_ERROR_FIXTURES,
  META_RESPONSES,
  successHandlers,
  VERSION
} from "../fixtures/meta/index.js"
import { graphMock } from "../support/graph-mock.js"

const server = graphMock("error")

const chat: ChannelCredentials = {
  kind: "chat",
  id: 11,
  phone_number_id: "106540352242922",
  waba_id: "102290129340398",
  access_token: Redacted.make("EAAGmswChatToken0123456789abcdef")
}
const social: ChannelCredentials = {
  kind: "social",
  id: 12,
  social_id: "17841405309211844",
  access_token: Redacted.make("EAAGmswSocialToken0123456789abcdef")
}

const MetaLive = Upstream.layerWith({ timeoutMs: 300, uploadTimeoutMs: 300, retryBaseMs: 5, retries: 2 }).pipe(
  Layer.provideMerge(AppConfig.layerWith({
    UPSTREAM: "meta",
    META_GRAPH_URL: GRAPH,
    META_GRAPH_VERSION: VERSION,
    META_APP_ID: "334185239753467",
    META_APP_SECRET: "msw-app-secret-value"
  })),
  Layer.provideMerge(FetchHttpClient.layer)
)

type Case = readonly [name: string, run: (u: Upstream) => Effect.Effect<unknown, unknown>, check: (result: unknown) => void]

/** Every Upstream method against Meta's documented success bodies. */
const SUCCESS_CASES: ReadonlyArray<Case> = [
  ["sendMessage (chat)", (u) => u.sendMessage(chat, { to: "15551234567", type: "text", text: "hi" }), (r) =>
    expect(r).toEqual({ message_id: META_RESPONSES.chatSend.messages[0].id, recipient_id: "15551234567", message_status: "accepted" })],
  ["sendMessage (social)", (u) => u.sendMessage(social, { to: "1254459154682919", type: "text", text: "hi" }), (r) =>
    expect(r).toMatchObject({ message_id: META_RESPONSES.socialSend.message_id, recipient_id: "1254459154682919" })],
  ["markRead", (u) => u.markRead(chat, "wamid.X"), (r) => expect(r).toEqual({ message_id: "wamid.X", status: "read" })],
  ["sendMessage (social typing)", (u) => u.sendMessage(social, { to: "1254459154682919", type: "typing" }), (r) =>
    expect(r).toEqual({ message_id: null, recipient_id: "1254459154682919", message_status: null })],
  ["uploadMedia", (u) => u.uploadMedia(chat, { data: new Uint8Array([1]), mime_type: "image/jpeg", filename: "a.jpg" }), (r) =>
    expect(r).toEqual({ media_id: "1037543291543636" })],
  ["uploadMedia (social)", (u) => u.uploadMedia(social, { data: Stream.make(new Uint8Array([1])), mime_type: "image/jpeg", filename: "a.jpg" }), (r) =>
    expect(r).toEqual({ media_id: "1857777774821032" })],
  ["getMediaUrl", (u) => u.getMediaUrl(chat, "1037543291543636"), (r) =>
    expect(r).toMatchObject({ url: META_RESPONSES.mediaInfo.url, mime_type: "image/jpeg", file_size: 303833 })],
  ["downloadMedia", (u) => u.downloadMedia(chat, META_RESPONSES.mediaInfo.url), (r) =>
    expect(r).toMatchObject({ mime_type: "image/jpeg", file_size: 4 })],
  ["deleteMedia", (u) => u.deleteMedia(chat, "1037543291543636"), (r) => expect(r).toEqual({ deleted: true })],
  ["createTemplate", (u) => u.createTemplate(chat, { name: "order_update", language: "en_US", category: "utility", components: [] }), (r) =>
    expect(r).toEqual({ id: "594425479261596", status: "PENDING", category: "UTILITY" })],
  ["editTemplate", (u) => u.editTemplate(chat, "594425479261596", { category: "marketing" }), (r) => expect(r).toEqual({ success: true })],
  ["deleteTemplate", (u) => u.deleteTemplate(chat, { name: "order_update" }), (r) => expect(r).toEqual({ deleted: true })],
  ["listTemplates", (u) => u.listTemplates(chat, { pageSize: 1 }), (r) =>
    expect(r).toEqual([
      expect.objectContaining({ id: "1252715608684590", status: "APPROVED", rejected_reason: null }),
      expect.objectContaining({ id: "1252715608684591", status: "REJECTED", rejected_reason: "INVALID_FORMAT" })
    ])],
  ["uploadHeaderMedia", (u) => u.uploadHeaderMedia(chat, { data: new Uint8Array([1, 2]), mime_type: "image/jpeg", filename: "h.jpg" }), (r) =>
    expect(r).toEqual({ handle: META_RESPONSES.uploadHandle.h })],
  ["getBusinessProfile", (u) => u.getBusinessProfile(chat), (r) => expect(r).toMatchObject({ about: "Hello", vertical: "RETAIL" })],
  ["updateBusinessProfile", (u) => u.updateBusinessProfile(chat, { about: "x" }), (r) => expect(r).toEqual({ updated: ["about"] })],
  ["getPhoneNumber", (u) => u.getPhoneNumber(chat), (r) => expect(r).toMatchObject({ quality_rating: Option.some("GREEN"), verified_name: "Jasper's Market" })],
  ["getHealth", (u) => u.getHealth(chat), (r) => expect(r).toMatchObject({ can_send_message: "LIMITED" })],
  ["getDisplayName", (u) => u.getDisplayName(chat), (r) => expect(r).toMatchObject({ name_status: "APPROVED" })],
  ["blockUsers", (u) => u.blockUsers(chat, ["+16505551234"]), (r) => expect(r).toEqual({ succeeded: [{ input: "+16505551234", wa_id: "16505551234" }], failed: [] })],
  ["unblockUsers", (u) => u.unblockUsers(chat, ["+16505551234"]), (r) => expect(r).toMatchObject({ succeeded: [{ wa_id: "16505551234" }] })],
  ["setTwoStepPin", (u) => u.setTwoStepPin(chat, "123456"), (r) => expect(r).toEqual({ success: true })],
  ["registerPhoneNumber", (u) => u.registerPhoneNumber(chat, "123456"), (r) => expect(r).toEqual({ success: true })],
  ["subscribeApp", (u) => u.subscribeApp(chat), (r) => expect(r).toEqual({ success: true })],
  ["exchangeCode", (u) => u.exchangeCode("signup-code"), (r) => expect(r).toMatchObject({ token_type: "bearer", expires_in: null })],
  ["exchangeSocialCode", (u) => u.exchangeSocialCode("oauth-code", "https://app.example/cb"), (r) => expect(r).toMatchObject({ expires_in: 5183944 })],
  ["listSocialAccounts", (u) => u.listSocialAccounts(Redacted.make("EAAGuser")), (r) =>
    expect(r).toEqual([expect.objectContaining({ page_id: "104000000000001", instagram_account_id: "17841405309211844" })])]
]

layer(MetaLive, { excludeTestServices: true })("Upstream against msw fixtures of the real Graph API", (it) => {
  it.effect.each(SUCCESS_CASES)("%s decodes Meta's documented success body", ([_name, run, check]) =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...successHandlers(rec))
      check(yield* Effect.flatMap(Upstream, run))
      expect(rec.calls.length).toBeGreaterThan(0)
    }))

  it.effect.each(META_ERROR_FIXTURES.map((f) => [f.name, f] as const))("%s becomes the classified UpstreamError and its 502 body", ([_name, fixture]) =>
    Effect.gen(function*() {
      server.use(...errorHandlers(fixture))
      const upstream = yield* Upstream
      const error = yield* Effect.flip(upstream.sendMessage(chat, { to: "15551234567", type: "text", text: "hi" }))
      expect(error).toMatchObject({ _tag: "UpstreamError", kind: fixture.kind, http_status: fixture.http_status })
      if (error._tag !== "UpstreamError") return
      expect(toSendErrorBody(error)).toEqual(fixture.expected_body)
    }))

  it.effect("every request carries the token only as a Bearer header, never in the URL", () =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...successHandlers(rec))
      const upstream = yield* Upstream
      yield* upstream.listTemplates(chat)
      yield* upstream.getHealth(chat)
      for (const call of rec.calls) {
        expect(call.authorization).toBe(`Bearer ${Redacted.value(chat.access_token)}`)
        expect(call.url).not.toContain("EAAG")
      }
    }))

  it.effect("the resumable upload sends the bytes with OAuth authorization and file_offset 0", () =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...successHandlers(rec))
      yield* Effect.flatMap(Upstream, (u) => u.uploadHeaderMedia(chat, { data: new Uint8Array([7, 8, 9]), mime_type: "image/png", filename: "h.png" }))
      expect(rec.calls[0]?.url).toContain("/334185239753467/uploads?file_name=h.png&file_length=3&file_type=image%2Fpng")
      expect(rec.calls[1]?.url).toContain("/upload:MTph")
      expect(rec.calls[1]?.authorization).toBe(`OAuth ${Redacted.value(chat.access_token)}`)
    }))

  it.effect("the code exchange keeps the app secret out of the URL", () =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...successHandlers(rec))
      yield* Effect.flatMap(Upstream, (u) => u.exchangeCode("signup-code"))
      expect(rec.calls[0]?.url).toBe(`${GRAPH}/${VERSION}/oauth/access_token`)
      expect(new URLSearchParams(rec.calls[0]?.body).get("client_secret")).toBe("msw-app-secret-value")
    }))

  it.effect("an idempotent GET is retried after 5xx answers and then succeeds", () =>
    Effect.gen(function*() {
      let calls = 0
      server.use(http.get(`${GRAPH}/${VERSION}/:id`, () => {
        calls++
        return calls < 3
          ? HttpResponse.json({ error: { message: "An unexpected error has occurred.", type: "OAuthException", code: 2, fbtrace_id: "Aretry" } }, { status: 503 })
          : HttpResponse.json(META_RESPONSES.health)
      }))
      const health = yield* Effect.flatMap(Upstream, (u) => u.getHealth(chat))
      expect(health.can_send_message).toBe("LIMITED")
      expect(calls).toBe(3)
    }))

  it.effect("a GET failing with 4xx is not retried", () =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...errorHandlers(META_ERROR_FIXTURES.find((f) => f.kind === "invalid_parameter")!, rec))
      yield* Effect.flip(Effect.flatMap(Upstream, (u) => u.getHealth(chat)))
      expect(rec.calls).toHaveLength(1)
    }))

  it.effect("a non-idempotent POST is never retried, even on 5xx", () =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...errorHandlers(META_ERROR_FIXTURES.find((f) => f.kind === "server")!, rec))
      const error = yield* Effect.flip(Effect.flatMap(Upstream, (u) => u.sendMessage(chat, { to: "1", type: "text", text: "x" })))
      expect(error).toMatchObject({ _tag: "UpstreamError", kind: "server", http_status: 500 })
      expect(rec.calls).toHaveLength(1)
    }))

  it.effect("a call that gets no answer in time fails with UpstreamTimeout; a GET tries 1 + retries times", () =>
    Effect.gen(function*() {
      let calls = 0
      server.use(http.all(`${GRAPH}/*`, async () => {
        calls++
        await delay(2_000)
        return HttpResponse.json(META_RESPONSES.success)
      }))
      const upstream = yield* Upstream
      const post = yield* Effect.flip(upstream.sendMessage(chat, { to: "1", type: "text", text: "x" }))
      expect(post).toMatchObject({ _tag: "UpstreamTimeout", operation: "messages.send", timeout_ms: 300 })
      expect(toSendErrorBody(post as never)).toMatchObject({ error: "upstream_timeout", meta_code: null })
      expect(calls).toBe(1)
      const get = yield* Effect.flip(upstream.getHealth(chat))
      expect(get._tag).toBe("UpstreamTimeout")
      expect(calls).toBe(4)
    }))

  it.effect("a non-JSON gateway page is a server UpstreamError without envelope fields", () =>
    Effect.gen(function*() {
      server.use(http.all(`${GRAPH}/*`, () => new HttpResponse("<html>502 Bad Gateway</html>", { status: 502, headers: { "content-type": "text/html" } })))
      const error = yield* Effect.flip(Effect.flatMap(Upstream, (u) => u.sendMessage(chat, { to: "1", type: "text", text: "x" })))
      expect(error).toMatchObject({ _tag: "UpstreamError", kind: "server", meta_code: null, http_status: 502 })
    }))

  it.effect("an unreachable upstream is a network UpstreamError", () =>
    Effect.gen(function*() {
      server.use(http.all(`${GRAPH}/*`, () => HttpResponse.error()))
      const error = yield* Effect.flip(Effect.flatMap(Upstream, (u) => u.sendMessage(chat, { to: "1", type: "text", text: "x" })))
      expect(error).toMatchObject({ _tag: "UpstreamError", kind: "network", http_status: null })
    }))

  it.effect("Meta's mixed 400 of block_users (139100) is the per-user result; a 400 without the lists stays an UpstreamError", () =>
    Effect.gen(function*() {
      const mixed = {
        messaging_product: "whatsapp",
        block_users: {
          added_users: [{ input: "+16505551234", wa_id: "16505551234" }],
          failed_users: [{ input: "+16505550000", errors: [{ message: "Re-engagement required", code: 131047 }] }]
        },
        error: { message: "(#139100) Failed to block/unblock users", type: "OAuthException", code: 139100, fbtrace_id: "AbT" }
      }
      server.use(http.post(`${GRAPH}/${VERSION}/:pnid/block_users`, () => HttpResponse.json(mixed, { status: 400 })))
      const upstream = yield* Upstream
      expect(yield* upstream.blockUsers(chat, ["+16505551234", "+16505550000"])).toEqual({
        succeeded: [{ input: "+16505551234", wa_id: "16505551234" }],
        failed: [{ input: "+16505550000", errors: [{ message: "Re-engagement required", code: 131047 }] }]
      })
      server.use(http.post(`${GRAPH}/${VERSION}/:pnid/block_users`, () => HttpResponse.json({ error: mixed.error }, { status: 400 })))
      const error = yield* Effect.flip(upstream.blockUsers(chat, ["+16505551234"]))
      expect(error).toMatchObject({ _tag: "UpstreamError", meta_code: 139100, http_status: 400 })
    }))

  it.effect("a success body of the wrong shape is an unexpected_response error", () =>
    Effect.gen(function*() {
      server.use(http.post(`${GRAPH}/${VERSION}/:pnid/messages`, () => HttpResponse.json({ messages: [] })))
      const error = yield* Effect.flip(Effect.flatMap(Upstream, (u) => u.sendMessage(chat, { to: "1", type: "text", text: "x" })))
      expect(error).toMatchObject({ _tag: "UpstreamError", kind: "unexpected_response" })
    }))

  it.effect("media download refuses URLs that are not Meta's, so the token stays home", () =>
    Effect.gen(function*() {
      const rec = makeRecorder()
      server.use(...successHandlers(rec))
      const upstream = yield* Upstream
      for (const url of ["https://evil.example/x", "http://lookaside.fbsbx.com/x", "https://fbsbx.com.evil.example/x", "not a url"]) {
        expect(yield* Effect.flip(upstream.downloadMedia(chat, url))).toMatchObject({ _tag: "UpstreamRequestInvalid" })
      }
      expect(rec.calls).toHaveLength(0)
      expect((yield* upstream.downloadMedia(chat, `${LOOKASIDE}?mid=1`)).file_size).toBe(4)
    }))
})
