import { describe, expect, expectTypeOf, it } from "vitest"
import {
  EVENT_TYPES,
  isEventType,
  parse,
  verifyAndParse,
  type ChannelEventData,
  type ConversationEventData,
  type MessageEventData,
  type TemplateStatusChangedData,
  type UnknownWebhookEvent,
  type WebhookEvent
} from "../src/index.js"
import { sign } from "../src/testing.js"
import { backends, dataFor, envelope, OTHER_SECRET, SECRET, useBackend } from "./helpers.js"

const json = (value: unknown) => JSON.stringify(value)

describe("parse()", () => {
  it("knows exactly the twelve SPEC event types", () => {
    expect(EVENT_TYPES).toHaveLength(12)
    expect(new Set(EVENT_TYPES).size).toBe(12)
  })

  it.each(EVENT_TYPES.map((type) => [type]))("parses a single %s envelope with its data", (type) => {
    const sent = envelope(type)
    const result = parse(json(sent))
    expect(result).toEqual({ ok: true, batch: false, events: [sent], unknownEvents: [] })
    expect(result.ok && result.events[0]!.data).toEqual(dataFor(type))
  })

  it("treats a body with a top-level events key as a batch, keeping order", () => {
    const events = [envelope("message.sent"), envelope("message.delivered"), envelope("conversation.created")]
    expect(parse(json({ events }))).toEqual({ ok: true, batch: true, events, unknownEvents: [] })
  })

  it("treats an empty events array as an empty batch", () => {
    expect(parse(json({ events: [] }))).toEqual({ ok: true, batch: true, events: [], unknownEvents: [] })
  })

  it("returns unknown future event types as generic envelopes in unknownEvents instead of failing", () => {
    const known = envelope("message.sent")
    const future = envelope("payment.captured", { data: { amount: 10 } })
    expect(parse(json({ events: [known, future] }))).toEqual({ ok: true, batch: true, events: [known], unknownEvents: [future] })
    expect(parse(json(future))).toEqual({ ok: true, batch: false, events: [], unknownEvents: [future] })
  })

  it("returns an envelope of a future api_version as a generic envelope in unknownEvents", () => {
    const future = envelope("message.sent", { api_version: "platform-v2" })
    expect(parse(json(future))).toEqual({ ok: true, batch: false, events: [], unknownEvents: [future] })
  })

  it.each([
    ["a string", "string"],
    ["a Uint8Array", "bytes"],
    ["an ArrayBuffer", "buffer"]
  ])("parses a raw body given as %s, including non-ASCII text", (_case, kind) => {
    const sent = envelope("message.received")
    const text = json(sent)
    const bytes = new TextEncoder().encode(text)
    const body = kind === "string" ? text : kind === "bytes" ? bytes : bytes.slice().buffer
    expect(parse(body)).toEqual({ ok: true, batch: false, events: [sent], unknownEvents: [] })
  })

  it.each([
    ["malformed JSON", "{not json", "invalid_json"],
    ["an empty body", "", "invalid_json"],
    ["invalid UTF-8 bytes", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "invalid_json"],
    ["a JSON array", "[]", "invalid_envelope"],
    ["a JSON number", "42", "invalid_envelope"],
    ["JSON null", "null", "invalid_envelope"],
    ["events that are not an array", json({ events: {} }), "invalid_envelope"],
    ["a batch containing a non-object", json({ events: [envelope("message.sent"), 1] }), "invalid_envelope"],
    ["an envelope without id", json(envelope("message.sent", { id: undefined })), "invalid_envelope"],
    ["an envelope without event", json(envelope("message.sent", { event: 3 })), "invalid_envelope"],
    ["a string developer_account_id", json(envelope("message.sent", { developer_account_id: "42" })), "invalid_envelope"],
    ["a string platform_channel_id", json(envelope("message.sent", { platform_channel_id: "7" })), "invalid_envelope"],
    ["a numeric occurred_at", json(envelope("message.sent", { occurred_at: 1 })), "invalid_envelope"],
    ["a missing api_version", json(envelope("message.sent", { api_version: undefined })), "invalid_envelope"],
    ["data that is an array", json(envelope("message.sent", { data: [] })), "invalid_envelope"],
    ["data that is null", json(envelope("message.sent", { data: null })), "invalid_envelope"]
  ] as const)("reports %s as %s", (_case, body, reason) => {
    const result = parse(body)
    expect(result).toMatchObject({ ok: false, reason })
  })

  it("accepts a null platform_channel_id (account-level events)", () => {
    expect(parse(json(envelope("template.status_changed", { platform_channel_id: null }))).ok).toBe(true)
  })

  it("names the offending batch entry and field", () => {
    const result = parse(json({ events: [envelope("message.sent"), envelope("message.sent", { occurred_at: null })] }))
    expect(result.ok === false && result.message).toBe("events[1] occurred_at must be a string")
  })

  it("throws a TypeError that asks for the raw body when given a parsed object", () => {
    expect(() => parse(envelope("message.sent") as unknown as string)).toThrow(
      /^@platform\/webhook-verify: parse\(\) got an already-parsed object.*raw request body/
    )
  })

  it("isEventType() recognises the twelve types only", () => {
    expect(EVENT_TYPES.every(isEventType)).toBe(true)
    expect(isEventType("message.deleted")).toBe(false)
  })

  it("narrows the event union by event type", () => {
    const result = parse(json(envelope("template.status_changed")))
    if (!result.ok) throw new Error("expected ok")
    const event = result.events[0]!
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>()
    switch (event.event) {
      case "message.received":
      case "message.echo":
        expectTypeOf(event.data).toEqualTypeOf<MessageEventData>()
        break
      case "conversation.inactive":
        expectTypeOf(event.data).toEqualTypeOf<ConversationEventData>()
        break
      case "channel.connected":
        expectTypeOf(event.data).toEqualTypeOf<ChannelEventData>()
        break
      case "template.status_changed":
        expectTypeOf(event.data).toEqualTypeOf<TemplateStatusChangedData>()
        expect(event.data.status).toBe("approved")
        break
      default:
        expectTypeOf(event.event).toEqualTypeOf<
          "message.sent" | "message.delivered" | "message.read" | "message.failed" | "conversation.created" | "conversation.ended" | "channel.disconnected"
        >()
    }
    expectTypeOf(result.unknownEvents).toEqualTypeOf<ReadonlyArray<UnknownWebhookEvent>>()
  })
})

describe.each(backends)("verifyAndParse() with the %s backend", (_name, backend) => {
  useBackend(backend)

  it("parses a correctly signed batch", async () => {
    const body = json({ events: [envelope("message.sent"), envelope("message.read")] })
    const result = await verifyAndParse(SECRET, body, await sign(SECRET, body))
    expect(result).toMatchObject({ ok: true, batch: true })
    expect(result.ok && result.events.map((e) => e.event)).toEqual(["message.sent", "message.read"])
  })

  it("accepts a rotation list of secrets", async () => {
    const body = json(envelope("channel.connected"))
    expect((await verifyAndParse([OTHER_SECRET, SECRET], body, await sign(SECRET, body))).ok).toBe(true)
  })

  it("does not parse a body whose signature does not match", async () => {
    const body = json(envelope("message.sent"))
    expect(await verifyAndParse(SECRET, body, await sign(OTHER_SECRET, body))).toMatchObject({ ok: false, reason: "signature_mismatch" })
  })

  it("reports a correctly signed body that is not JSON as invalid_json", async () => {
    expect(await verifyAndParse(SECRET, "oops", await sign(SECRET, "oops"))).toMatchObject({ ok: false, reason: "invalid_json" })
  })

  it("throws a TypeError for a parsed-object body", async () => {
    await expect(verifyAndParse(SECRET, envelope("message.sent") as unknown as string, "sha256=00")).rejects.toThrow(/already-parsed/)
  })
})
