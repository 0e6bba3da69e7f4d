import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { MarkRead, MessageTypes, SendMessage } from "@platform/shared"
import { pathsOf } from "./helpers.js"

const send = (fields: object) => ({ channel_id: 1, to: "15550100", ...fields })
const template = (components: ReadonlyArray<unknown>) =>
  send({ type: "template", template_name: "t", language_code: "en", components })

describe("SendMessage requires the field of each type", () => {
  it.each([
    ["text", {}, ["text"]],
    ["template", { language_code: "en" }, ["template_name"]],
    ["template", { template_name: "t" }, ["language_code"]],
    ["image", {}, ["media"]],
    ["video", {}, ["media"]],
    ["audio", {}, ["media"]],
    ["document", {}, ["media"]],
    ["sticker", {}, ["media"]],
    ["interactive", {}, ["interactive"]],
    ["catalog", {}, ["interactive"]],
    ["location", {}, ["location"]],
    ["contacts", {}, ["contacts"]],
    ["reaction", {}, ["reaction"]]
  ] as const)("type %s with %j is rejected at %j", (type, fields, path) => {
    expect(pathsOf(SendMessage, send({ type, ...fields }))).toContainEqual(path)
  })

  it("covers all 13 types, and typing needs nothing beyond channel_id and to", () => {
    expect(MessageTypes).toHaveLength(13)
    expect(pathsOf(SendMessage, send({ type: "typing" }))).toStrictEqual([])
  })
})

describe("SendMessage rejects", () => {
  it.each([
    ["a media object with both link and id", send({ type: "image", media: { link: "https://x/a.jpg", id: "m1" } }), ["media", "id"]],
    ["a media object with neither link nor id", send({ type: "image", media: { caption: "c" } }), ["media", "link"]],
    ["an unknown type", send({ type: "poll" }), ["type"]],
    ["a missing channel_id", { to: "1", type: "typing" }, ["channel_id"]],
    ["a non-integer channel_id", send({ type: "typing", channel_id: 1.5 }), ["channel_id"]],
    ["a missing recipient", { channel_id: 1, type: "typing" }, ["to"]],
    ["an unknown top-level field", send({ type: "text", text: "hi", priority: "high" }), ["priority"]],
    ["an unknown field in the media object", send({ type: "image", media: { id: "m1", width: 3 } }), ["media", "width"]],
    ["a context without message_id", send({ type: "text", text: "hi", context: {} }), ["context", "message_id"]],
    ["contacts as an empty array", send({ type: "contacts", contacts: [] }), ["contacts"]],
    ["a location without longitude", send({ type: "location", location: { latitude: 1 } }), ["location", "longitude"]],
    ["a latitude beyond 90", send({ type: "location", location: { latitude: 90.5, longitude: 0 } }), ["location", "latitude"]],
    ["a longitude beyond -180", send({ type: "location", location: { latitude: 0, longitude: -180.5 } }), ["location", "longitude"]],
    // JSON.parse turns 1e400 into Infinity, which JSON.stringify sends upstream as null.
    ["an infinite latitude", send({ type: "location", location: { latitude: Infinity, longitude: 0 } }), ["location", "latitude"]],
    ["body parameters mixing named and positional", template([{
      type: "body",
      parameters: [{ type: "text", text: "a", parameter_name: "x" }, { type: "text", text: "b" }]
    }]), ["components", 0, "parameters", 1, "parameter_name"]],
    ["a named body beside a currency parameter", template([{
      type: "body",
      parameters: [
        { type: "text", text: "a", parameter_name: "x" },
        { type: "currency", currency: { fallback_value: "$1", code: "USD", amount_1000: 1000 } }
      ]
    }]), ["components", 0, "parameters", 1, "parameter_name"]],
    ["an image parameter in a body", template([{ type: "body", parameters: [{ type: "image", image: { id: "m" } }] }]), [
      "components",
      0,
      "parameters",
      0,
      "type"
    ]],
    ["a quick_reply button with two payloads", template([{
      type: "button",
      sub_type: "quick_reply",
      index: 0,
      parameters: [{ type: "payload", payload: "a" }, { type: "payload", payload: "b" }]
    }]), ["components", 0, "parameters"]],
    ["a url button with a payload parameter", template([{
      type: "button",
      sub_type: "url",
      index: 0,
      parameters: [{ type: "payload", payload: "a" }]
    }]), ["components", 0, "parameters", 0, "type"]],
    ["a copy_code button without its coupon_code", template([{ type: "button", sub_type: "copy_code", index: 0, parameters: [] }]), [
      "components",
      0,
      "parameters"
    ]],
    ["a button without index", template([{ type: "button", sub_type: "url", parameters: [{ type: "text", text: "1" }] }]), [
      "components",
      0,
      "index"
    ]],
    ["a nested carousel", template([{
      type: "carousel",
      cards: [0, 1].map((card_index) => ({ card_index, components: [{ type: "carousel", cards: [] }] }))
    }]), ["components", 0, "cards", 0, "components", 0, "type"]],
    ["a header image parameter with both link and id", template([{
      type: "header",
      parameters: [{ type: "image", image: { link: "https://x", id: "m" } }]
    }]), ["components", 0, "parameters", 0, "image", "id"]]
  ])("%s", (_name, input, path) => {
    expect(pathsOf(SendMessage, input)).toContainEqual(path)
  })
})

describe("SendMessage decoding", () => {
  it("decodes an integer button index to its string form", () => {
    const decoded = Schema.decodeUnknownSync(SendMessage)(template([{
      type: "button",
      sub_type: "quick_reply",
      index: 1,
      parameters: [{ type: "payload", payload: "yes" }]
    }]))
    expect(decoded.type === "template" && decoded.components?.[0]).toMatchObject({ index: "1" })
  })

  it.each([
    ["audio drops caption and filename", "audio", { id: "m", caption: "c", filename: "f", voice: true }, { id: "m", voice: true }],
    ["sticker drops caption and voice", "sticker", { id: "m", caption: "c", voice: true }, { id: "m" }],
    ["image drops filename and voice", "image", { id: "m", caption: "c", filename: "f", voice: false }, { id: "m", caption: "c" }],
    ["document keeps caption and filename", "document", { link: "https://x/a.pdf", caption: "c", filename: "a.pdf" }, {
      link: "https://x/a.pdf",
      caption: "c",
      filename: "a.pdf"
    }]
  ])("%s", (_name, type, media, expected) => {
    const decoded = Schema.decodeUnknownSync(SendMessage)(send({ type, media }))
    expect("media" in decoded && decoded.media).toStrictEqual(expected)
  })

  it.each([[-90, -180], [90, 180], [0, 0]])("accepts a location at latitude %d, longitude %d", (latitude, longitude) => {
    expect(pathsOf(SendMessage, send({ type: "location", location: { latitude, longitude } }))).toStrictEqual([])
  })

  it("keeps the interactive object open", () => {
    const interactive = { type: "list", action: { sections: [{ rows: [{ id: "1", title: "A" }] }] }, anything: true }
    const decoded = Schema.decodeUnknownSync(SendMessage)(send({ type: "interactive", interactive }))
    expect(decoded.interactive).toStrictEqual(interactive)
  })

  it("accepts fields of other types and ignores them (template_name on text)", () => {
    expect(pathsOf(SendMessage, send({ type: "text", text: "hi", template_name: "t" }))).toStrictEqual([])
  })
})

describe("MarkRead", () => {
  it.each([
    [0, false],
    [1, true],
    [255, true],
    [256, false]
  ])("a message_id of %i characters is accepted: %s", (length, ok) => {
    const message_id = "x".repeat(length)
    expect(pathsOf(MarkRead, { channel_id: 1, message_id })).toStrictEqual(ok ? [] : [["message_id"]])
  })

  // SPEC §8 counts characters: an emoji is one, not its two UTF-16 units.
  it.each([
    [255, true],
    [256, false]
  ])("a message_id of %i emoji is accepted: %s", (length, ok) => {
    const message_id = "😀".repeat(length)
    expect(pathsOf(MarkRead, { channel_id: 1, message_id })).toStrictEqual(ok ? [] : [["message_id"]])
  })

  it("rejects unknown fields", () => {
    expect(pathsOf(MarkRead, { channel_id: 1, message_id: "m", status: "read" })).toStrictEqual([["status"]])
  })
})
