import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { metaJsonStringify, signHubSignature, verifyHubSignature } from "../../src/upstream/hub-signature.js"
import { decodeMetaWebhook, extractQualityRating } from "../../src/upstream/webhook-payload.js"
import { META_WEBHOOKS } from "../fixtures/meta/webhooks.js"

describe("Meta webhook payload schemas", () => {
  it.each(Object.entries(META_WEBHOOKS))("%s parses", (_name, payload) => {
    expect(Either.isRight(decodeMetaWebhook(payload))).toBe(true)
  })

  it("an inbound text message decodes with its metadata, contact and body", () => {
    const decoded = Either.getOrThrow(decodeMetaWebhook(META_WEBHOOKS.inboundText))
    if (decoded.object !== "whatsapp_business_account") throw new Error("wrong object")
    const change = decoded.entry[0]!.changes[0]!
    expect(change.field).toBe("messages")
    expect(change.value).toMatchObject({
      metadata: { phone_number_id: "106540352242922" },
      contacts: [{ wa_id: "16315551181", profile: { name: "Kerry Fisher" } }],
      messages: [{ type: "text", text: { body: "Hello!" } }]
    })
  })

  it("unknown fields, unknown message types and unknown change fields do not fail parsing", () => {
    expect(Either.isRight(decodeMetaWebhook(META_WEBHOOKS.futureMessageType))).toBe(true)
    expect(Either.isRight(decodeMetaWebhook(META_WEBHOOKS.unknownField))).toBe(true)
  })

  it("a failed status keeps its errors array", () => {
    const decoded = Either.getOrThrow(decodeMetaWebhook(META_WEBHOOKS.failedStatus))
    if (decoded.object !== "whatsapp_business_account") throw new Error("wrong object")
    expect(decoded.entry[0]!.changes[0]!.value).toMatchObject({ statuses: [{ status: "failed", errors: [{ code: 131026 }] }] })
  })

  it("a body that is not a Meta webhook is refused", () => {
    expect(Either.isLeft(decodeMetaWebhook({ object: "whatsapp_business_account" }))).toBe(true)
    expect(Either.isLeft(decodeMetaWebhook("nope"))).toBe(true)
  })

  it.each([
    [{ display_phone_number: "15550001234", event: "FLAGGED", current_limit: "TIER_1K" }, Option.some("RED")],
    [{ display_phone_number: "15550001234", event: "UNFLAGGED", current_limit: "TIER_1K" }, Option.some("GREEN")],
    [{ display_phone_number: "15550001234", event: "UPGRADE", current_limit: "TIER_10K" }, Option.none()],
    [{ event: "DOWNGRADE", current_limit: "TIER_250", quality_rating: "YELLOW" }, Option.some("YELLOW")],
    [{ id: "1", quality_rating: "GREEN" }, Option.some("GREEN")],
    [{ id: "1", quality_rating: "UNKNOWN" }, Option.some("UNKNOWN")],
    [{ id: "1" }, Option.none()],
    [null, Option.none()]
  ] as const)("extractQualityRating(%o) is %o", (value, expected) => {
    expect(extractQualityRating(value)).toEqual(expected)
  })
})

describe("Meta's escaped-ASCII JSON and X-Hub-Signature-256", () => {
  it("escapes non-ASCII as \\uXXXX and / as \\/ and round-trips through JSON.parse", () => {
    const value = { text: "caf\u00e9 \ud83d\ude00 a/b", n: 1 }
    const s = metaJsonStringify(value)
    expect(s).toBe('{"text":"caf\\u00e9 \\ud83d\\ude00 a\\/b","n":1}')
    expect(JSON.parse(s)).toEqual(value)
  })

  it.each([
    ["the exact bytes", (body: string) => body, true],
    ["re-serialized bytes", (body: string) => JSON.stringify(JSON.parse(body)), false],
    ["bytes with a trailing newline", (body: string) => `${body}\n`, false]
  ] as const)("a signature verifies over %s: %s", (_name, mutate, ok) => {
    const body = metaJsonStringify({ a: "\u00e9/" })
    const signature = signHubSignature("app-secret", body)
    expect(verifyHubSignature("app-secret", mutate(body), signature)).toBe(ok)
  })

  it.each([undefined, "", "sha1=abc", "sha256=00"])("a missing or malformed header %o does not verify", (header) => {
    expect(verifyHubSignature("app-secret", "{}", header)).toBe(false)
  })
})
