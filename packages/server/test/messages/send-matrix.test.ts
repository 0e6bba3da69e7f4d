import { expect, layer } from "@effect/vitest"
import type { MessageType } from "@platform/shared"
import { Effect } from "effect"
import { MessagingTestServer, request, sandboxSends, sandboxTemplate, send, setup, sharedSetup } from "./support.js"

const shared = sharedSetup("matrix")
let seeded = false
/** The shared setup, its WABA holding order_update in Meta's copy (the simulator answers 132001 for a name it lacks). */
const ctx = Effect.tap(shared, (s) => (seeded ? Effect.void : Effect.tap(sandboxTemplate(s, "order_update"), () => (seeded = true))))

const SOCIAL_TYPES: ReadonlySet<MessageType> = new Set(["text", "image", "video", "audio", "document", "reaction", "typing"])

/** One valid and one invalid body per type (SPEC §4.1), the invalid one with the `loc` its 422 must name. */
const CASES: ReadonlyArray<{
  readonly type: MessageType
  readonly valid: Record<string, unknown>
  readonly invalid: Record<string, unknown>
  readonly loc: ReadonlyArray<string | number>
}> = [
  { type: "text", valid: { text: "hello", preview_url: true, context: { message_id: "wamid.prev" } }, invalid: {}, loc: ["body", "text"] },
  {
    type: "template",
    valid: { template_name: "order_update", language_code: "en_US", components: [{ type: "body", parameters: [{ type: "text", text: "42" }] }] },
    invalid: { language_code: "en_US" },
    loc: ["body", "template_name"]
  },
  { type: "image", valid: { media: { link: "https://cdn.example.com/a.jpg", caption: "a cat" } }, invalid: {}, loc: ["body", "media"] },
  { type: "video", valid: { media: { id: "1037543291543636", caption: "clip" } }, invalid: { media: {} }, loc: ["body", "media", "link"] },
  { type: "audio", valid: { media: { id: "1037543291543636", voice: true } }, invalid: { media: { id: "1", link: "https://x.example/a" } }, loc: ["body", "media", "id"] },
  { type: "document", valid: { media: { link: "https://cdn.example.com/a.pdf", filename: "a.pdf", caption: "invoice" } }, invalid: {}, loc: ["body", "media"] },
  { type: "sticker", valid: { media: { id: "1037543291543636" } }, invalid: { media: { link: "" } }, loc: ["body", "media", "link"] },
  {
    type: "interactive",
    valid: { interactive: { type: "button", body: { text: "Pick" }, action: { buttons: [{ type: "reply", reply: { id: "a", title: "A" } }] } } },
    invalid: {},
    loc: ["body", "interactive"]
  },
  { type: "location", valid: { location: { latitude: 52.52, longitude: 13.4, name: "Office" } }, invalid: { location: { latitude: 1 } }, loc: ["body", "location", "longitude"] },
  { type: "contacts", valid: { contacts: [{ name: { formatted_name: "Ada" }, phones: [{ phone: "+15550100" }] }] }, invalid: { contacts: [] }, loc: ["body", "contacts"] },
  { type: "reaction", valid: { reaction: { message_id: "wamid.prev", emoji: "👍" } }, invalid: { reaction: { emoji: "👍" } }, loc: ["body", "reaction", "message_id"] },
  { type: "typing", valid: { context: { message_id: "wamid.prev" } }, invalid: { to: undefined }, loc: ["body", "to"] },
  {
    type: "catalog",
    valid: { interactive: { type: "catalog_message", body: { text: "See" }, action: { name: "catalog_message" } } },
    invalid: {},
    loc: ["body", "interactive"]
  }
]

const KINDS = ["chat", "social"] as const

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("POST /platform/v1/messages: 13 types × channel kinds", (it) => {
  for (const kind of KINDS) {
    for (const c of CASES) {
      const accepted = kind === "chat" || SOCIAL_TYPES.has(c.type)
      it.effect(`a valid ${c.type} on a ${kind} channel is ${accepted ? "200 with the upstream id" : "400 chat_only without an upstream call"}`, () =>
        Effect.gen(function*() {
          const s = yield* ctx
          const before = yield* sandboxSends
          const to = kind === "chat" ? "15551230001" : "1254459154682919"
          const reply = yield* send(s.key, { channel_id: s[kind], to, type: c.type, ...c.valid })
          const calls = (yield* sandboxSends) - before
          if (accepted) {
            expect(reply.status, reply.text).toBe(200)
            expect(reply.body).toEqual({ channel_id: s[kind], message_id: expect.any(String), type: c.type })
            if (kind === "chat" && c.type !== "typing") expect(reply.body.message_id).toMatch(/^wamid\./)
            expect(calls).toBe(1)
          } else {
            expect(reply.status, reply.text).toBe(400)
            expect(reply.body.detail.code).toBe("chat_only")
            expect(calls).toBe(0)
          }
        }))

      it.effect(`an invalid ${c.type} on a ${kind} channel is 422 at ${c.loc.join(".")} without an upstream call`, () =>
        Effect.gen(function*() {
          const s = yield* ctx
          const before = yield* sandboxSends
          const body = Object.fromEntries(
            Object.entries({ channel_id: s[kind], to: "15551230001", type: c.type, ...c.invalid }).filter(([, v]) => v !== undefined)
          )
          const reply = yield* send(s.key, body)
          expect(reply.status, reply.text).toBe(422)
          expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(c.loc)
          expect((yield* sandboxSends) - before).toBe(0)
        }))
    }
  }

  const KIND_RULES: ReadonlyArray<readonly [string, "chat" | "social", Record<string, unknown>, number, ReadonlyArray<string> | null]> = [
    ["a chat document by link without filename is 422 at media.filename", "chat", { type: "document", media: { link: "https://cdn.example.com/a.pdf" } }, 422, ["body", "media", "filename"]],
    ["a chat document by link with an empty filename is 422 at media.filename", "chat", { type: "document", media: { link: "https://cdn.example.com/a.pdf", filename: "" } }, 422, ["body", "media", "filename"]],
    ["a chat document by link with a filename of spaces is 422 at media.filename", "chat", { type: "document", media: { link: "https://cdn.example.com/a.pdf", filename: "  " } }, 422, ["body", "media", "filename"]],
    ["a social document by link without filename is sent", "social", { type: "document", media: { link: "https://cdn.example.com/a.pdf" } }, 200, null],
    ["a chat document by id without filename is sent", "chat", { type: "document", media: { id: "1037543291543636" } }, 200, null],
    ["preview_url on a social text is ignored", "social", { type: "text", text: "https://example.com", preview_url: true }, 200, null],
    ["a chat typing without context and no inbound message to answer is 422 at context.message_id", "chat", { type: "typing" }, 422, ["body", "context", "message_id"]],
    ["a social typing needs nothing beyond channel_id and to", "social", { type: "typing" }, 200, null],
    ["an unknown field is 422", "chat", { type: "text", text: "x", colour: "red" }, 422, ["body", "colour"]],
    ["a template on a social channel is 400 chat_only", "social", { type: "template", template_name: "x", language_code: "en" }, 400, null]
  ]
  for (const [name, kind, body, status, loc] of KIND_RULES) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const reply = yield* send(s.key, { channel_id: s[kind], to: "15551230002", ...body })
        expect(reply.status, reply.text).toBe(status)
        if (loc !== null) expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc)
      }))
  }

  // Empty or blank values Meta refuses (or that name nobody): 422 at the field, not a send to "   " or a 502.
  const BLANK: ReadonlyArray<readonly [string, "chat" | "social", Record<string, unknown>, ReadonlyArray<string | number>]> = [
    ["an empty text", "chat", { type: "text", text: "" }, ["body", "text"]],
    ["an empty text on social", "social", { type: "text", text: "" }, ["body", "text"]],
    ["a text of spaces", "chat", { type: "text", text: "   " }, ["body", "text"]],
    ["a text of newlines and a tab on social", "social", { type: "text", text: "\n\t\n" }, ["body", "text"]],
    ["a recipient of spaces", "chat", { to: "   ", type: "text", text: "hi" }, ["body", "to"]],
    ["a recipient of a tab on social", "social", { to: "\t", type: "text", text: "hi" }, ["body", "to"]],
    ["a template name of spaces", "chat", { type: "template", template_name: "   ", language_code: "en_US" }, ["body", "template_name"]],
    ["a template language code of a tab", "chat", { type: "template", template_name: "order_update", language_code: "\t" }, ["body", "language_code"]],
    ["an image by a media id of spaces", "chat", { type: "image", media: { id: "   " } }, ["body", "media", "id"]],
    ["a template header document by a blank media id", "chat", { type: "template", template_name: "order_update", language_code: "en_US", components: [{ type: "header", parameters: [{ type: "document", document: { id: " " } }] }] }, ["body", "components", 0, "parameters", 0, "document", "id"]],
    ["a reply to a blank message id", "chat", { type: "text", text: "hi", context: { message_id: " " } }, ["body", "context", "message_id"]],
    ["a reaction to a blank message id", "chat", { type: "reaction", reaction: { message_id: "  ", emoji: "👍" } }, ["body", "reaction", "message_id"]]
  ]
  for (const [name, kind, body, loc] of BLANK) {
    it.effect(`${name} is 422 at ${loc.slice(1).join(".")} without an upstream call`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const before = yield* sandboxSends
        const reply = yield* send(s.key, { channel_id: s[kind], to: "15551230005", ...body })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail).toHaveLength(1)
        expect(reply.body.detail[0]).toMatchObject({ loc, type: "value_error", msg: expect.stringMatching(/^must not be empty/) })
        expect((yield* sandboxSends) - before).toBe(0)
      }))
  }

  // The upstream fetches media by an http(s) URL and refuses anything else, after the send had answered 200.
  const LINKS: ReadonlyArray<readonly [string, Record<string, unknown>, ReadonlyArray<string | number>]> = [
    ["not a url", { type: "image", media: { link: "not a url" } }, ["body", "media", "link"]],
    ["ftp://cdn.example.com/a.png", { type: "image", media: { link: "ftp://cdn.example.com/a.png" } }, ["body", "media", "link"]],
    ["cdn.example.com/a.pdf", { type: "document", media: { link: "cdn.example.com/a.pdf", filename: "a.pdf" } }, ["body", "media", "link"]],
    [" https://cdn.example.com/a.mp4", { type: "video", media: { link: " https://cdn.example.com/a.mp4" } }, ["body", "media", "link"]],
    [
      "file:///etc/passwd in a template header",
      {
        type: "template",
        template_name: "order_update",
        language_code: "en_US",
        components: [{ type: "header", parameters: [{ type: "image", image: { link: "file:///etc/passwd" } }] }]
      },
      ["body", "components", 0, "parameters", 0, "image", "link"]
    ]
  ]
  for (const [name, body, loc] of LINKS) {
    it.effect(`a media link ${name} is 422 at ${loc.slice(1).join(".")} without an upstream call`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const before = yield* sandboxSends
        const reply = yield* send(s.key, { channel_id: s.chat, to: "15551230006", ...body })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail).toContainEqual(
          expect.objectContaining({ loc, msg: expect.stringMatching(/^must be an http or https URL/) })
        )
        expect((yield* sandboxSends) - before).toBe(0)
      }))
  }

  // A 422 names what is wrong and nothing else: components are told apart by `type` first,
  // so a broken header or body is not also "sub_type is missing" (only buttons have one).
  const text = (value?: string) => (value === undefined ? { type: "text" } : { type: "text", text: value })
  const COMPONENTS: ReadonlyArray<readonly [string, ReadonlyArray<unknown>, ReadonlyArray<readonly [ReadonlyArray<string | number>, string]>]> = [
    ["a body text parameter without text", [{ type: "body", parameters: [text()] }], [[["body", "components", 0, "parameters", 0, "text"], "is missing"]]],
    ["a header text parameter without text", [{ type: "header", parameters: [text()] }], [[["body", "components", 0, "parameters", 0, "text"], "is missing"]]],
    ["header parameters that are not a list", [{ type: "header", parameters: "x" }], [[["body", "components", 0, "parameters"], "must be a list of header parameters"]]],
    ["a component of an unknown type", [{ type: "footer" }], [[["body", "components", 0, "type"], "Expected \"header\" | \"body\" | \"button\" | \"carousel\", actual \"footer\""]]],
    [
      "a broken body inside a carousel card",
      [{ type: "carousel", cards: [{ card_index: 0, components: [{ type: "body", parameters: [text()] }] }, { card_index: 1, components: [] }] }],
      [[["body", "components", 0, "cards", 0, "components", 0, "parameters", 0, "text"], "is missing"]]
    ],
    ["an empty body text parameter", [{ type: "body", parameters: [text("")] }], [[["body", "components", 0, "parameters", 0, "text"], "must not be empty"]]],
    [
      "an empty url button suffix",
      [{ type: "button", sub_type: "url", index: 0, parameters: [text("")] }],
      [[["body", "components", 0, "parameters", 0, "text"], "must not be empty"]]
    ],
    [
      "two carousel cards with the same card_index",
      [{ type: "carousel", cards: [{ card_index: 0, components: [] }, { card_index: 1, components: [] }, { card_index: 0, components: [] }] }],
      [[["body", "components", 0, "cards", 2, "card_index"], "card_index 0 is given to more than one card"]]
    ],
    [
      "a body component given twice",
      [{ type: "body", parameters: [text("a")] }, { type: "body", parameters: [text("b")] }],
      [[["body", "components", 1, "type"], "a body component is given twice: at most one is allowed"]]
    ],
    [
      "two components for one button (index 0 and \"0\")",
      [
        { type: "button", sub_type: "url", index: 0, parameters: [text("a")] },
        { type: "button", sub_type: "url", index: "0", parameters: [text("b")] }
      ],
      [[["body", "components", 1, "index"], "button index 0 is given twice: one component per button"]]
    ],
    [
      "a header given twice in a carousel card",
      [{
        type: "carousel",
        cards: [
          { card_index: 0, components: [] },
          { card_index: 1, components: [{ type: "header", parameters: [{ type: "image", image: { id: "1" } }] }, { type: "header", parameters: [{ type: "image", image: { id: "2" } }] }] }
        ]
      }],
      [[["body", "components", 0, "cards", 1, "components", 1, "type"], "a header component is given twice: at most one is allowed"]]
    ],
    ["a button without sub_type", [{ type: "button", index: 0, parameters: [text("x")] }], [[["body", "components", 0, "sub_type"], "is missing"]]],
    [
      "a url button given a payload parameter",
      [{ type: "button", sub_type: "url", index: 0, parameters: [{ type: "payload", payload: "p" }] }],
      [[["body", "components", 0, "parameters", 0, "type"], "a url button takes a text parameter, not payload"]]
    ],
    [
      "a copy_code button with two coupon codes",
      [{ type: "button", sub_type: "copy_code", index: "1", parameters: [{ type: "coupon_code", coupon_code: "A" }, { type: "coupon_code", coupon_code: "B" }] }],
      [[["body", "components", 0, "parameters"], "a copy_code button takes exactly one coupon_code parameter"]]
    ],
    [
      "a negative button index",
      [{ type: "button", sub_type: "quick_reply", index: -1, parameters: [{ type: "payload", payload: "p" }] }],
      [[["body", "components", 0, "index"], "must be a non-negative integer or its decimal string form"]]
    ]
  ]
  // Type mismatches say what to send, not the schema's TypeScript type.
  const SHAPES: ReadonlyArray<readonly [string, Record<string, unknown>, ReadonlyArray<readonly [ReadonlyArray<string | number>, string]>]> = [
    ["an interactive that is a list", { type: "interactive", interactive: [] }, [[["body", "interactive"], "must be a JSON object"]]],
    ["a catalog interactive that is a string", { type: "catalog", interactive: "x" }, [[["body", "interactive"], "must be a JSON object"]]],
    ["a contact that is a number", { type: "contacts", contacts: [1] }, [[["body", "contacts", 0], "must be a JSON object"]]],
    ["template components that are an object", { type: "template", template_name: "order_update", language_code: "en_US", components: {} }, [[["body", "components"], "must be a list of components"]]]
  ]
  for (const [name, body, detail] of SHAPES) {
    it.effect(`${name} is 422 saying ${detail.map(([, msg]) => `'${msg}'`).join(", ")}`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const reply = yield* send(s.key, { channel_id: s.chat, to: "15551230008", ...body })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail.map((d: { loc: unknown; msg: unknown }) => [d.loc, d.msg])).toEqual(detail)
      }))
  }

  for (const [name, components, detail] of COMPONENTS) {
    it.effect(`${name} is 422 naming only ${detail.map(([loc]) => loc.slice(1).join(".")).join(", ")}`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const before = yield* sandboxSends
        const reply = yield* send(s.key, { channel_id: s.chat, to: "15551230007", type: "template", template_name: "order_update", language_code: "en_US", components })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail.map((d: { loc: unknown; msg: unknown }) => [d.loc, d.msg])).toEqual(detail)
        expect((yield* sandboxSends) - before).toBe(0)
      }))
  }

  // JSON can escape half of a surrogate pair; Postgres stores no such string, so the send was made and then a 500.
  const SURROGATES: ReadonlyArray<readonly [string, (chat: number) => string, ReadonlyArray<string | number> | null]> = [
    ["a reply context message_id", (c) => `{"channel_id":${c},"to":"15551230009","type":"text","text":"hi","context":{"message_id":"wamid.\\ud800"}}`, ["body", "context", "message_id"]],
    ["a template body parameter", (c) => `{"channel_id":${c},"to":"15551230009","type":"template","template_name":"t","language_code":"en","components":[{"type":"body","parameters":[{"type":"text","text":"\\udc00"}]}]}`, ["body", "components", 0, "parameters", 0, "text"]],
    ["an interactive value", (c) => `{"channel_id":${c},"to":"15551230009","type":"interactive","interactive":{"body":{"text":"x\\uD83D"}}}`, ["body", "interactive", "body", "text"]],
    ["a text", (c) => `{"channel_id":${c},"to":"15551230009","type":"text","text":"a\\ud800b"}`, ["body", "text"]],
    ["a text with an escaped pair (an emoji)", (c) => `{"channel_id":${c},"to":"15551230009","type":"text","text":"\\ud83d\\ude00"}`, null]
  ]
  /** Sent (200, one upstream call) when `loc` is null; else one 422 issue at `loc` like `issue`, and no upstream call. */
  const sentOrRefused = (
    reply: { readonly status: number; readonly text: string; readonly body: any },
    calls: number,
    loc: ReadonlyArray<string | number> | null,
    issue: Record<string, unknown>
  ) => {
    if (loc === null) {
      expect(reply.status, reply.text).toBe(200)
      expect(calls).toBe(1)
    } else {
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail).toHaveLength(1)
      expect(reply.body.detail[0]).toMatchObject({ loc, ...issue })
      expect(calls).toBe(0)
    }
  }

  for (const [name, raw, loc] of SURROGATES) {
    it.effect(loc === null ? `${name} is sent` : `a lone surrogate in ${name} is 422 at ${loc.slice(1).join(".")} without an upstream call`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const before = yield* sandboxSends
        const reply = yield* request("POST", "/platform/v1/messages", { key: s.key, rawBody: raw(s.chat) })
        sentOrRefused(reply, (yield* sandboxSends) - before, loc, { type: "value_error", msg: expect.stringMatching(/^must not contain an unpaired UTF-16 surrogate/) })
      }))
  }

  it.effect("mark-read of a blank message_id is 422 at message_id without an upstream call", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const before = yield* sandboxSends
      const reply = yield* request("POST", "/platform/v1/messages/mark-read", { key: s.key, body: { channel_id: s.chat, message_id: "   " } })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail).toMatchObject([{ loc: ["body", "message_id"], msg: "must not be only whitespace" }])
      expect((yield* sandboxSends) - before).toBe(0)
    }))

  // The upstream's limits: WhatsApp text 4096 and captions 1024 characters, Instagram text under 1000.
  const LENGTHS: ReadonlyArray<readonly [string, "chat" | "social", Record<string, unknown>, ReadonlyArray<string> | null]> = [
    ["a chat text of 4096 characters is sent", "chat", { type: "text", text: "a".repeat(4096) }, null],
    ["a chat text of 4096 emoji is sent (characters, not UTF-16 units)", "chat", { type: "text", text: "😀".repeat(4096) }, null],
    ["a chat text of 4097 characters is 422 at text", "chat", { type: "text", text: "a".repeat(4097) }, ["body", "text"]],
    ["a social text of 999 characters is sent", "social", { type: "text", text: "a".repeat(999) }, null],
    ["a social text of 1000 characters is 422 at text", "social", { type: "text", text: "a".repeat(1000) }, ["body", "text"]],
    ["a chat image caption of 1024 characters is sent", "chat", { type: "image", media: { id: "1037543291543636", caption: "c".repeat(1024) } }, null],
    ["a chat video caption of 1025 characters is 422 at media.caption", "chat", { type: "video", media: { id: "1037543291543636", caption: "c".repeat(1025) } }, ["body", "media", "caption"]],
    ["a chat document caption of 1025 characters is 422 at media.caption", "chat", { type: "document", media: { id: "1037543291543636", caption: "c".repeat(1025) } }, ["body", "media", "caption"]],
    ["a social image caption of 1025 characters is dropped and the image sent", "social", { type: "image", media: { id: "1037543291543636", caption: "c".repeat(1025) } }, null]
  ]
  for (const [name, kind, body, loc] of LENGTHS) {
    it.effect(loc === null ? name : `${name} without an upstream call`, () =>
      Effect.gen(function*() {
        const s = yield* ctx
        const before = yield* sandboxSends
        const reply = yield* send(s.key, { channel_id: s[kind], to: kind === "chat" ? "15551230004" : "1254459154682919", ...body })
        sentOrRefused(reply, (yield* sandboxSends) - before, loc, { msg: expect.stringMatching(/^must be at most \d+ characters$/) })
      }))
  }

  it.effect("an interactive object nested 20,000 levels deep is 422 at body, with or without an Idempotency-Key, and sends nothing", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const before = yield* sandboxSends
      const depth = 20_000
      const rawBody = `{"channel_id":${s.chat},"to":"15551230005","type":"interactive","interactive":${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}}`
      for (const headers of [{}, { "idempotency-key": `deep-${Date.now()}` }]) {
        const reply = yield* request("POST", "/platform/v1/messages", { key: s.key, rawBody, headers })
        expect(reply.status, reply.text).toBe(422)
        expect(reply.body.detail).toEqual([
          { loc: ["body"], msg: "must not nest arrays and objects deeper than 64 levels", type: "value_error", input: null, ctx: { max_depth: 64 } }
        ])
      }
      expect((yield* sandboxSends) - before).toBe(0)
      const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) })
      const fine = yield* send(s.key, { channel_id: s.chat, to: "15551230005", type: "interactive", interactive: nested(62) })
      expect(fine.status, fine.text).toBe(200)
    }))

  it.effect("a channel of another account is 404, the same as a missing one", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const other = yield* setup("other")
      const foreign = yield* send(s.key, { channel_id: other.chat, to: "1555", type: "text", text: "x" })
      const missing = yield* send(s.key, { channel_id: 99999999, to: "1555", type: "text", text: "x" })
      expect(foreign.status).toBe(404)
      expect(missing.status).toBe(404)
      expect(foreign.body).toEqual(missing.body)
    }))

  it.effect("every send response carries the rate-limit headers", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const ok = yield* send(s.key, { channel_id: s.chat, to: "15551230003", type: "text", text: "x" })
      const bad = yield* send(s.key, { channel_id: s.chat, to: "15551230003", type: "text" })
      for (const reply of [ok, bad]) {
        expect(reply.headers.get("x-ratelimit-limit")).toBe("100000")
        expect(reply.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/)
        expect(reply.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/)
      }
      expect(ok.headers.get("server-timing")).toMatch(/^upstream;dur=\d+(\.\d)?$/)
    }))
})
