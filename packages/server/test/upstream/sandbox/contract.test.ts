import { UPSTREAM_HINTS } from "@platform/shared"
import { FetchHttpClient, HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, Option, Redacted, Stream } from "effect"
import { NodeHttpServer } from "@effect/platform-node"
import { AppConfig } from "../../../src/config.js"
import { toSendErrorBody, type UpstreamErrorKind } from "../../../src/upstream/errors.js"
import { verifyHubSignature } from "../../../src/upstream/hub-signature.js"
import type { SendMessageInput } from "../../../src/upstream/message-payload.js"
import { injectInbound } from "../../../src/upstream/sandbox/inject-inbound.js"
import {
  SANDBOX_ERROR_CASES,
  SANDBOX_EXPIRED_TOKEN,
  SANDBOX_MAGIC_RECIPIENTS
} from "../../../src/upstream/sandbox/magic.js"
import { SANDBOX_GRAPH_PREFIX, SandboxRoutes } from "../../../src/upstream/sandbox/router.js"
import { SandboxState } from "../../../src/upstream/sandbox/state.js"
import { Upstream } from "../../../src/upstream/upstream.js"
import { decodeMetaWebhookJson, type MetaWebhookPayload } from "../../../src/upstream/webhook-payload.js"
import { APP_SECRET, chatCreds, received, SandboxHarness, socialCreds } from "./harness.js"

const TO = "15551234567"
const IGSID = "1254459154682919"

const CHAT_SENDS: ReadonlyArray<SendMessageInput> = [
  { to: TO, type: "text", text: "hello", preview_url: true },
  { to: TO, type: "template", template_name: "order_update", language_code: "en_US", components: [{ type: "body", parameters: [{ type: "text", text: "42" }] }] },
  { to: TO, type: "image", media: { link: "https://example.com/a.jpg", caption: "look" } },
  { to: TO, type: "video", media: { id: "1234567890" } },
  { to: TO, type: "audio", media: { id: "1234567890", voice: true } },
  { to: TO, type: "document", media: { link: "https://example.com/a.pdf", filename: "a.pdf" } },
  { to: TO, type: "sticker", media: { id: "1234567890" } },
  { to: TO, type: "interactive", interactive: { type: "button", body: { text: "Pick" }, action: { buttons: [{ type: "reply", reply: { id: "y", title: "Yes" } }] } } },
  { to: TO, type: "location", location: { latitude: 52.52, longitude: 13.4, name: "Berlin" } },
  { to: TO, type: "contacts", contacts: [{ name: { formatted_name: "Ann", first_name: "Ann" }, phones: [{ phone: "+15550001111" }] }] },
  { to: TO, type: "reaction", reaction: { message_id: "wamid.ABC", emoji: "\ud83d\udc4d" } },
  { to: TO, type: "catalog", interactive: { body: { text: "Our catalog" }, action: { name: "catalog_message" } } }
]

const SOCIAL_SENDS: ReadonlyArray<readonly [SendMessageInput, boolean]> = [
  [{ to: IGSID, type: "text", text: "hi", context: { message_id: "m_prev" } }, true],
  [{ to: IGSID, type: "image", media: { link: "https://example.com/a.jpg" } }, true],
  [{ to: IGSID, type: "video", media: { link: "https://example.com/a.mp4" } }, true],
  [{ to: IGSID, type: "audio", media: { link: "https://example.com/a.mp3" } }, true],
  [{ to: IGSID, type: "document", media: { id: "998877" } }, true],
  [{ to: IGSID, type: "reaction", reaction: { message_id: "m_prev", emoji: "\u2764" } }, false],
  [{ to: IGSID, type: "typing" }, false]
]

const EXPECTED_KIND: Readonly<Record<number, UpstreamErrorKind>> = {
  130429: "throughput_limited",
  80007: "throughput_limited",
  131056: "pair_rate_limited",
  131047: "reengagement_required",
  132001: "template_missing",
  132000: "template_param_mismatch",
  132012: "template_param_mismatch",
  190: "auth",
  100: "invalid_parameter"
}

/** Webhooks received since `from`, verified against the app secret and parsed with the inbound parser. */
const verifiedSince = (from: number) =>
  received.slice(from).map((w) => {
    expect(verifyHubSignature(APP_SECRET, w.body, w.signature)).toBe(true)
    expect(/^[\x20-\x7e]*$/.test(w.body)).toBe(true)
    const parsed = decodeMetaWebhookJson(w.body)
    if (Either.isLeft(parsed)) throw new Error(`unparsable webhook ${w.body}`)
    return parsed.right
  })

const statusesOf = (payloads: ReadonlyArray<MetaWebhookPayload>, messageId: string) =>
  payloads.flatMap((p) =>
    p.object === "whatsapp_business_account"
      ? p.entry.flatMap((e) =>
        e.changes.flatMap((c) => c.field === "messages" && "statuses" in (c.value as object) ? ((c.value as { statuses?: ReadonlyArray<{ id: string; status: string; errors?: ReadonlyArray<{ code: number }> }> }).statuses ?? []) : [])
      ).filter((s) => s.id === messageId)
      : []
  )

/** The chat line's WABA has order_update (en_US), approved: Meta sends only templates its WABA has. */
const haveOrderUpdate = (state: SandboxState) =>
  Effect.gen(function*() {
    const line = { phone_number_id: chatCreds.phone_number_id!, waba_id: chatCreds.waba_id! }
    yield* state.linkChannel(line)
    state.templates.set("1000000000000042", {
      id: "1000000000000042",
      waba_id: line.waba_id,
      name: "order_update",
      language: "en_US",
      category: "UTILITY",
      status: "APPROVED",
      components: [{ type: "BODY", text: "Order {{1}} has shipped" }],
      parameter_format: null,
      rejected_reason: "NONE"
    })
  })

layer(SandboxHarness, { excludeTestServices: true })("Upstream against the sandbox over HTTP", (it) => {
  it.effect("a template send naming a template the WABA does not have in that language is Meta's 404 132001", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      yield* haveOrderUpdate(state)
      for (const [name, language] of [["order_updat", "en_US"], ["order_update", "pt_BR"]] as const) {
        const error = yield* Effect.flip(upstream.sendMessage(chatCreds, { to: TO, type: "template", template_name: name, language_code: language }))
        expect(error._tag).toBe("UpstreamError")
        if (error._tag !== "UpstreamError") return
        expect([error.kind, error.http_status]).toEqual(["template_missing", 404])
        expect(toSendErrorBody(error)).toMatchObject({ meta_code: 132001, message: "(#132001) Template name does not exist in the translation" })
      }
    }))

  it.effect.each(CHAT_SENDS.map((s) => [s.type, s] as const))("chat send of type %s returns a wamid and reaches the sandbox", ([type, send]) =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      yield* haveOrderUpdate(state)
      const sent = yield* upstream.sendMessage(chatCreds, send)
      expect(sent.message_id).toMatch(/^wamid\./)
      const recorded = state.messages.find((m) => m.id === sent.message_id)
      expect(recorded?.type).toBe(type === "catalog" ? "interactive" : type)
      expect(recorded?.sender_id).toBe(chatCreds.phone_number_id)
    }))

  it.effect.each(SOCIAL_SENDS.map(([s, mid]) => [s.type, s, mid] as const))(
    "social send of type %s is accepted by the Instagram messages endpoint",
    ([_type, send, hasMid]) =>
      Effect.gen(function*() {
        const upstream = yield* Upstream
        const sent = yield* upstream.sendMessage(socialCreds, send)
        if (hasMid) expect(sent.message_id).toMatch(/^m_/)
        else expect(sent.message_id).toBeNull()
        expect(sent.recipient_id).toBe(IGSID)
      })
  )

  it.effect.each(["template", "sticker", "interactive", "location", "contacts", "catalog"] as const)(
    "social send of type %s is refused as chat_only before any upstream call",
    (type) =>
      Effect.gen(function*() {
        const upstream = yield* Upstream
        const state = yield* SandboxState
        const before = state.calls.length
        const error = yield* Effect.flip(upstream.sendMessage(socialCreds, { to: IGSID, type, text: "x" }))
        expect(error).toMatchObject({ _tag: "UpstreamRequestInvalid", code: "chat_only" })
        expect(state.calls.length).toBe(before)
      })
  )

  it.effect("a chat send gets sent, delivered and read callbacks, signed over the exact escaped-ASCII bytes", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      const sent = yield* upstream.sendMessage(chatCreds, { to: TO, type: "text", text: "callbacks please" })
      yield* state.awaitCallbacks
      const statuses = statusesOf(verifiedSince(from), sent.message_id!)
      expect(statuses.map((s) => s.status)).toEqual(["sent", "delivered", "read"])
    }))

  it.effect("the failed-delivery recipient gets a failed status carrying Meta's errors array", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      const sent = yield* upstream.sendMessage(chatCreds, { to: SANDBOX_MAGIC_RECIPIENTS.failedDelivery, type: "text", text: "x" })
      yield* state.awaitCallbacks
      const statuses = statusesOf(verifiedSince(from), sent.message_id!)
      expect(statuses.map((s) => s.status)).toEqual(["sent", "failed"])
      expect(statuses[1]?.errors?.[0]?.code).toBe(131026)
      expect(received.slice(from).some((w) => w.body.includes("https:\\/\\/developers.facebook.com"))).toBe(true)
    }))

  it.effect("the never-read recipient is delivered but never read", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      const sent = yield* upstream.sendMessage(chatCreds, { to: SANDBOX_MAGIC_RECIPIENTS.neverRead, type: "text", text: "x" })
      yield* state.awaitCallbacks
      expect(statusesOf(verifiedSince(from), sent.message_id!).map((s) => s.status)).toEqual(["sent", "delivered"])
    }))

  it.effect("a social send gets an Instagram read event routed by the account id", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      const sent = yield* upstream.sendMessage(socialCreds, { to: IGSID, type: "text", text: "seen?" })
      yield* state.awaitCallbacks
      const reads = verifiedSince(from).flatMap((p) =>
        p.object === "instagram" ? p.entry.flatMap((e) => (e.messaging ?? []).map((m) => ({ entry: e.id, m }))) : []
      )
      expect(reads).toHaveLength(1)
      expect(reads[0]?.entry).toBe(socialCreds.social_id)
      expect(reads[0]?.m.read?.mid).toBe(sent.message_id)
      expect(reads[0]?.m.sender.id).toBe(IGSID)
    }))

  it.effect.each(SANDBOX_ERROR_CASES.map((c) => [c.code, c] as const))(
    "magic recipient for code %s fails synchronously with the classified UpstreamError and 502 body",
    ([code, c]) =>
      Effect.gen(function*() {
        const upstream = yield* Upstream
        for (const creds of [chatCreds, socialCreds]) {
          const to = c.recipient
          const error = yield* Effect.flip(upstream.sendMessage(creds, { to, type: "text", text: "x" }))
          expect(error._tag).toBe("UpstreamError")
          if (error._tag !== "UpstreamError") return
          expect(error.kind).toBe(EXPECTED_KIND[code])
          expect(error.http_status).toBe(c.http_status)
          const body = toSendErrorBody(error)
          expect(body).toEqual({
            error: EXPECTED_KIND[code],
            meta_code: code,
            meta_subcode: c.subcode ?? null,
            meta_title: expect.any(String),
            message: c.message,
            fbtrace_id: expect.stringMatching(/^A/),
            // The codes developers meet most carry a hint (100, invalid parameter, does not).
            hint: UPSTREAM_HINTS[code]
          })
          expect("hint" in body).toBe(code !== 100)
        }
      })
  )

  it.effect("an expired token is auth 190/463 on any call", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const error = yield* Effect.flip(upstream.getHealth({ ...chatCreds, access_token: Redacted.make(SANDBOX_EXPIRED_TOKEN) }))
      expect(error).toMatchObject({ _tag: "UpstreamError", kind: "auth", meta_code: 190, meta_subcode: 463 })
    }))

  it.effect("mark read and typing reach the messages endpoint for both channel kinds", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      expect(yield* upstream.markRead(chatCreds, "wamid.INBOUND1")).toEqual({ message_id: "wamid.INBOUND1", status: "read" })
      yield* upstream.sendMessage(chatCreds, { to: TO, type: "typing", context: { message_id: "wamid.INBOUND2" } })
      expect(yield* upstream.markRead(socialCreds, IGSID)).toEqual({ message_id: IGSID, status: "read" })
      yield* upstream.sendMessage(socialCreds, { to: IGSID, type: "typing" })
      expect(state.markedRead).toEqual(expect.arrayContaining([
        { sender_id: chatCreds.phone_number_id, message_id: "wamid.INBOUND1", typing: false },
        { sender_id: chatCreds.phone_number_id, message_id: "wamid.INBOUND2", typing: true },
        { sender_id: socialCreds.social_id, message_id: IGSID, typing: false },
        { sender_id: socialCreds.social_id, message_id: IGSID, typing: true }
      ]))
    }))

  it.effect("media upload, URL lookup, download and delete round-trip the bytes", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const bytes = new TextEncoder().encode("%PDF-1.4 sandbox document")
      const { media_id } = yield* upstream.uploadMedia(chatCreds, { data: bytes, mime_type: "application/pdf", filename: "doc.pdf" })
      expect(media_id).toMatch(/^\d{16}$/)
      const info = yield* upstream.getMediaUrl(chatCreds, media_id)
      expect(info).toMatchObject({ id: media_id, mime_type: "application/pdf", file_size: bytes.length })
      const downloaded = yield* upstream.downloadMedia(chatCreds, info.url)
      expect(new TextDecoder().decode(downloaded.bytes)).toBe("%PDF-1.4 sandbox document")
      expect(downloaded.mime_type).toBe("application/pdf")
      expect(yield* upstream.deleteMedia(chatCreds, media_id)).toEqual({ deleted: true })
      const gone = yield* Effect.flip(upstream.getMediaUrl(chatCreds, media_id))
      expect(gone).toMatchObject({ _tag: "UpstreamError", kind: "invalid_parameter", meta_code: 100, meta_subcode: 33 })
    }))

  it.effect("a streamed media upload arrives whole", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5]), new Uint8Array([6])]
      const { media_id } = yield* upstream.uploadMedia(chatCreds, {
        data: Stream.fromIterable(chunks),
        mime_type: "image/png",
        filename: "p.png",
        size: 6
      })
      expect([...state.media.get(media_id)!.bytes]).toEqual([1, 2, 3, 4, 5, 6])
      const social = yield* upstream.uploadMedia(socialCreds, { data: new Uint8Array([9]), mime_type: "image/jpeg", filename: "x.jpg" })
      expect(state.media.get(social.media_id)?.owner_id).toBe(socialCreds.social_id)
    }))

  it.effect("the channel token is never sent to a media URL outside Meta or the Graph host", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const error = yield* Effect.flip(upstream.downloadMedia(chatCreds, "https://attacker.example/steal"))
      expect(error).toMatchObject({ _tag: "UpstreamRequestInvalid", code: "invalid_request" })
    }))

  it.effect("a template goes PENDING then APPROVED with a status callback routed by the WABA id", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      const created = yield* upstream.createTemplate(chatCreds, {
        name: "order_shipped",
        language: "en_US",
        category: "utility",
        components: [{ type: "BODY", text: "Order {{1}} shipped", example: { body_text: [["42"]] } }]
      })
      expect(created).toEqual({ id: expect.stringMatching(/^\d+$/), status: "PENDING", category: "UTILITY" })
      yield* state.awaitCallbacks
      const updates = verifiedSince(from).flatMap((p) =>
        p.object === "whatsapp_business_account"
          ? p.entry.flatMap((e) => e.changes.filter((c) => c.field === "message_template_status_update").map((c) => ({ entry: e.id, value: c.value as { event: string; message_template_id: number } })))
          : []
      )
      expect(updates).toEqual([{ entry: chatCreds.waba_id, value: expect.objectContaining({ event: "APPROVED", message_template_id: Number(created.id) }) }])
    }))

  it.effect("a template named reject_* is REJECTED with a reason", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      yield* upstream.createTemplate(chatCreds, { name: "reject_me", language: "en_US", category: "MARKETING", components: [{ type: "BODY", text: "Buy" }] })
      yield* state.awaitCallbacks
      verifiedSince(from)
      const update = received.slice(from).find((w) => w.body.includes("reject_me"))
      expect(JSON.parse(update!.body).entry[0].changes[0].value).toMatchObject({ event: "REJECTED", reason: "INVALID_FORMAT" })
      const listed = yield* upstream.listTemplates(chatCreds, { name: "reject_me" })
      expect(listed[0]).toMatchObject({ status: "REJECTED", rejected_reason: "INVALID_FORMAT" })
    }))

  it.effect("a template named review_* stays PENDING: no callback, and its edit is refused as Meta refuses a pending one", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const from = received.length
      const created = yield* upstream.createTemplate(chatCreds, { name: "review_me", language: "en_US", category: "UTILITY", components: [{ type: "BODY", text: "Hi" }] })
      yield* state.awaitCallbacks
      expect(received.slice(from).filter((w) => w.body.includes("review_me"))).toEqual([])
      const listed = yield* upstream.listTemplates(chatCreds, { name: "review_me" })
      expect(listed[0]).toMatchObject({ status: "PENDING" })
      const refused = yield* Effect.flip(upstream.editTemplate(chatCreds, created.id, { components: [{ type: "BODY", text: "b" }] }))
      expect(refused).toMatchObject({ _tag: "UpstreamError", kind: "invalid_parameter", meta_title: "Template can't be edited" })
    }))

  it.effect("listTemplates follows the after cursor through every page", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const creds = { ...chatCreds, waba_id: "900000000000001" }
      for (const n of [1, 2, 3, 4, 5]) {
        yield* upstream.createTemplate(creds, { name: `paged_${n}`, language: "en_US", category: "UTILITY", components: [{ type: "BODY", text: `n${n}` }] })
      }
      yield* state.awaitCallbacks
      const all = yield* upstream.listTemplates(creds, { pageSize: 2 })
      expect(all.map((t) => t.name)).toEqual(["paged_1", "paged_2", "paged_3", "paged_4", "paged_5"])
      expect(all.every((t) => t.status === "APPROVED" && typeof t.id === "string")).toBe(true)
      expect(state.calls.filter((c) => c.path.endsWith("/900000000000001/message_templates") && c.method === "GET")).toHaveLength(3)
    }))

  it.effect("editing an approved template re-submits it; editing a pending one is refused upstream", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const created = yield* upstream.createTemplate(chatCreds, { name: "editable", language: "de", category: "UTILITY", components: [{ type: "BODY", text: "a" }] })
      yield* state.awaitCallbacks
      // Held in review, as Meta keeps a template PENDING for a while.
      state.templates.get(created.id)!.status = "PENDING"
      const early = yield* Effect.flip(upstream.editTemplate(chatCreds, created.id, { components: [{ type: "BODY", text: "b" }] }))
      expect(early).toMatchObject({ _tag: "UpstreamError", kind: "invalid_parameter", meta_title: "Template can't be edited" })
      state.templates.get(created.id)!.status = "APPROVED"
      expect(yield* upstream.editTemplate(chatCreds, created.id, { components: [{ type: "BODY", text: "b" }] })).toEqual({ success: true })
      expect(state.templates.get(created.id)?.status).toBe("PENDING")
      yield* state.awaitCallbacks
      expect(state.templates.get(created.id)?.status).toBe("APPROVED")
    }))

  it.effect("deleteTemplate removes it by name; deleting an unknown name is an upstream error", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      yield* upstream.createTemplate(chatCreds, { name: "short_lived", language: "en_US", category: "UTILITY", components: [{ type: "BODY", text: "x" }] })
      expect(yield* upstream.deleteTemplate(chatCreds, { name: "short_lived" })).toEqual({ deleted: true })
      expect(yield* upstream.listTemplates(chatCreds, { name: "short_lived" })).toEqual([])
      const missing = yield* Effect.flip(upstream.deleteTemplate(chatCreds, { name: "short_lived" }))
      expect(missing).toMatchObject({ _tag: "UpstreamError", meta_code: 100, http_status: 404 })
    }))

  it.effect("uploadHeaderMedia runs the resumable upload and returns a header handle", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const { handle } = yield* upstream.uploadHeaderMedia(chatCreds, {
        data: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]),
        mime_type: "image/jpeg",
        filename: "header.jpg"
      })
      expect(handle).toMatch(/^4::/)
    }))

  it.effect("business profile update sends only the given fields and the profile reflects them", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      expect(yield* upstream.updateBusinessProfile(chatCreds, { about: "We ship", websites: ["https://shop.example"] })).toEqual({
        updated: ["about", "websites"]
      })
      const profile = yield* upstream.getBusinessProfile(chatCreds)
      expect(profile).toMatchObject({ about: "We ship", websites: ["https://shop.example"], email: null })
    }))

  it.effect("phone number, health and display-name lookups read the number's state", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      state.qualityRatings.set(chatCreds.phone_number_id!, "YELLOW")
      const phone = yield* upstream.getPhoneNumber(chatCreds)
      expect(phone.quality_rating).toEqual(Option.some("YELLOW"))
      expect(phone.throughput_level).toBe("STANDARD")
      const health = yield* upstream.getHealth(chatCreds)
      expect(health.can_send_message).toBe("AVAILABLE")
      expect(health.entities.map((e) => e.entity_type)).toContain("PHONE_NUMBER")
      expect(yield* upstream.getDisplayName(chatCreds)).toMatchObject({ verified_name: "Sandbox Business", name_status: "APPROVED" })
    }))

  it.effect("block and unblock users echo the users Meta resolved", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const blocked = yield* upstream.blockUsers(chatCreds, ["+1 555 000 2222", "15550003333"])
      expect(blocked.succeeded).toEqual([{ input: "+1 555 000 2222", wa_id: "15550002222" }, { input: "15550003333", wa_id: "15550003333" }])
      expect([...state.blocked.get(chatCreds.phone_number_id!)!]).toEqual(["15550002222", "15550003333"])
      const unblocked = yield* upstream.unblockUsers(chatCreds, ["15550003333"])
      expect(unblocked.succeeded.map((u) => u.wa_id)).toEqual(["15550003333"])
      expect([...state.blocked.get(chatCreds.phone_number_id!)!]).toEqual(["15550002222"])
    }))

  it.effect("two-step PIN, registration and app subscription reach the number and the WABA", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      yield* upstream.setTwoStepPin(chatCreds, "123456")
      yield* upstream.registerPhoneNumber(chatCreds, "654321")
      yield* upstream.subscribeApp(chatCreds)
      expect(state.pins.get(chatCreds.phone_number_id!)).toBe("654321")
      expect(state.registered.has(chatCreds.phone_number_id!)).toBe(true)
      expect(state.subscribedWabas.has(chatCreds.waba_id!)).toBe(true)
    }))

  it.effect("code exchanges accept any code and return a redacted token; the Page list names the Instagram account", () =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const chat = yield* upstream.exchangeCode("any-code")
      expect(Redacted.value(chat.access_token)).toMatch(/^EAAG/)
      expect(String(chat.access_token)).not.toContain("EAAG")
      const social = yield* upstream.exchangeSocialCode("another-code", "https://app.example/callback")
      const accounts = yield* upstream.listSocialAccounts(social.access_token)
      expect(accounts[0]).toMatchObject({ instagram_account_id: expect.stringMatching(/^178414\d{11}$/) })
      // Stable per login, distinct between logins.
      expect((yield* upstream.listSocialAccounts(social.access_token))[0]!.instagram_account_id).toBe(accounts[0]!.instagram_account_id)
      const other = yield* upstream.exchangeSocialCode("third-code", "https://app.example/callback")
      expect((yield* upstream.listSocialAccounts(other.access_token))[0]!.instagram_account_id).not.toBe(accounts[0]!.instagram_account_id)
    }))

  it.effect.each([
    ["getBusinessProfile", (u: Upstream): Effect.Effect<unknown, unknown> => u.getBusinessProfile(socialCreds)],
    ["createTemplate", (u: Upstream): Effect.Effect<unknown, unknown> => u.createTemplate(socialCreds, { name: "x", language: "en", category: "UTILITY", components: [] })],
    ["blockUsers", (u: Upstream): Effect.Effect<unknown, unknown> => u.blockUsers(socialCreds, ["1"])],
    ["getMediaUrl", (u: Upstream): Effect.Effect<unknown, unknown> => u.getMediaUrl(socialCreds, "1")],
    ["registerPhoneNumber", (u: Upstream): Effect.Effect<unknown, unknown> => u.registerPhoneNumber(socialCreds, "123456")]
  ] as const)("%s on a social channel is chat_only without an upstream call", ([_name, run]) =>
    Effect.gen(function*() {
      const upstream = yield* Upstream
      const state = yield* SandboxState
      const before = state.calls.length
      expect(yield* Effect.flip(run(upstream))).toMatchObject({ _tag: "UpstreamRequestInvalid", code: "chat_only" })
      expect(state.calls.length).toBe(before)
    }))

  it.effect("injectInbound posts a signed WhatsApp message whose non-ASCII text survives escaping", () =>
    Effect.gen(function*() {
      const from = received.length
      const text = "h\u00e9llo \ud83d\udc4b a/b"
      const injected = yield* injectInbound({ channel: chatCreds, from: TO, text, profile_name: "Zo\u00eb" })
      expect(injected.status).toBe(200)
      expect(injected.body).toContain("\\u00e9")
      expect(injected.body).toContain("\\ud83d\\udc4b")
      expect(injected.body).toContain("a\\/b")
      const [payload] = verifiedSince(from)
      expect(payload?.object).toBe("whatsapp_business_account")
      if (payload?.object !== "whatsapp_business_account") return
      const change = payload.entry[0]!.changes[0]!
      expect(change.field).toBe("messages")
      const value = change.value as { metadata: { phone_number_id: string }; messages: ReadonlyArray<{ id: string; text?: { body: string } }>; contacts: ReadonlyArray<{ profile?: { name?: string } }> }
      expect(value.metadata.phone_number_id).toBe(chatCreds.phone_number_id)
      expect(value.messages[0]).toMatchObject({ id: injected.message_id, text: { body: text } })
      expect(value.contacts[0]?.profile?.name).toBe("Zo\u00eb")
    }))

  it.effect("injectInbound posts Instagram messaging entries for text and attachments", () =>
    Effect.gen(function*() {
      const from = received.length
      yield* injectInbound({ channel: socialCreds, from: IGSID, text: "hey" })
      yield* injectInbound({ channel: socialCreds, from: IGSID, type: "image", payload: { url: "https://cdn.example/p.jpg" } })
      const events = verifiedSince(from).flatMap((p) => p.object === "instagram" ? p.entry.flatMap((e) => e.messaging ?? []) : [])
      expect(events.map((e) => e.message?.text ?? e.message?.attachments?.[0]?.type)).toEqual(["hey", "image"])
      expect(events.every((e) => e.recipient.id === socialCreds.social_id)).toBe(true)
    }))

  it.effect("injectInbound without text or type is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(injectInbound({ channel: chatCreds, from: TO }))
      expect(error).toMatchObject({ _tag: "UpstreamRequestInvalid" })
    }))
})

const RoutesHarness = Layer.mergeAll(SandboxRoutes, HttpApiBuilder.Router.Live).pipe(
  Layer.provideMerge(SandboxState.Default),
  Layer.provideMerge(AppConfig.layerWith({ META_APP_SECRET: APP_SECRET })),
  Layer.provideMerge(FetchHttpClient.layer),
  Layer.provideMerge(NodeHttpServer.layerContext)
)

layer(RoutesHarness, { excludeTestServices: true })("SandboxRoutes", (it) => {
  it.effect("mounts the simulator on HttpApiBuilder.Router under /__sandbox/graph", () =>
    Effect.gen(function*() {
      const router = yield* HttpApiBuilder.Router.router
      const app = yield* HttpRouter.toHttpApp(router)
      const request = new Request(`http://localhost${SANDBOX_GRAPH_PREFIX}/v23.0/106540352242922?fields=health_status`, {
        headers: { authorization: "Bearer EAAGtoken" }
      })
      const response = yield* app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(request)),
        Effect.scoped
      )
      const web = HttpServerResponse.toWeb(response)
      expect(web.status).toBe(200)
      const body = (yield* Effect.promise(() => web.json())) as { health_status: { can_send_message: string } }
      expect(body.health_status.can_send_message).toBe("AVAILABLE")
    }))
})
