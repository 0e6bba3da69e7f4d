import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { Template, TemplateCreate, TemplatePatch, templateComponentIssues } from "@platform/shared"
import * as F from "./fixtures.js"
import { pathsOf } from "./helpers.js"

const create = (components: ReadonlyArray<unknown>, extra: object = {}) => ({ ...F.templateCreate, components, ...extra })
const cards = (n: number) => Array.from({ length: n }, () => F.card)

describe("TemplateCreate rejects", () => {
  it.each([
    ["a CAROUSEL with 1 card", create([F.body, { type: "CAROUSEL", cards: cards(1) }]), ["components", 1, "cards"]],
    ["a CAROUSEL with 11 cards", create([F.body, { type: "CAROUSEL", cards: cards(11) }]), ["components", 1, "cards"]],
    ["a nested CAROUSEL in a card", create([F.body, {
      type: "CAROUSEL",
      cards: [F.card, { components: [F.body, { type: "CAROUSEL", cards: cards(2) }] }]
    }]), ["components", 1, "cards", 1, "components", 1, "type"]],
    ["a card without BODY", create([F.body, { type: "CAROUSEL", cards: [F.card, { components: [F.imageHeader] }] }]), [
      "components",
      1,
      "cards",
      1,
      "components"
    ]],
    ["footer code_expiration_minutes 0", create([F.body, { type: "FOOTER", code_expiration_minutes: 0 }], {
      category: "authentication",
      components: [{ type: "BODY" }, { type: "FOOTER", code_expiration_minutes: 0 }]
    }), ["components", 1, "code_expiration_minutes"]],
    ["footer code_expiration_minutes 91", create([], {
      category: "authentication",
      components: [{ type: "BODY" }, { type: "FOOTER", code_expiration_minutes: 91 }]
    }), ["components", 1, "code_expiration_minutes"]],
    ["a FOOTER with text and code_expiration_minutes", create([F.body, {
      type: "FOOTER",
      text: "x",
      code_expiration_minutes: 5
    }]), ["components", 1, "code_expiration_minutes"]],
    ["a FOOTER with neither text nor code_expiration_minutes", create([F.body, { type: "FOOTER" }]), ["components", 1, "text"]],
    ["code_expiration_minutes outside authentication", create([F.body, { type: "FOOTER", code_expiration_minutes: 5 }]), [
      "components",
      1,
      "code_expiration_minutes"
    ]],
    ["header_text and header_handle together", create([{
      type: "HEADER",
      format: "TEXT",
      text: "x",
      example: { header_text: ["a"], header_handle: ["h"] }
    }, F.body]), ["components", 0, "example", "header_handle"]],
    ["a HEADER IMAGE without header_handle", create([{ type: "HEADER", format: "IMAGE" }, F.body]), [
      "components",
      0,
      "example",
      "header_handle"
    ]],
    ["a HEADER VIDEO with two handles", create([{ type: "HEADER", format: "VIDEO", example: { header_handle: ["a", "b"] } }, F.body]), [
      "components",
      0,
      "example",
      "header_handle"
    ]],
    ["a HEADER TEXT without text", create([{ type: "HEADER", format: "TEXT" }, F.body]), ["components", 0, "text"]],
    ["a HEADER LOCATION with text", create([{ type: "HEADER", format: "LOCATION", text: "x" }, F.body]), ["components", 0, "text"]],
    ["a HEADER with an unknown format", create([{ type: "HEADER", format: "GIF" }, F.body]), ["components", 0, "format"]],
    ["a BODY with both example forms", create([{
      type: "BODY",
      text: "x",
      example: { body_text: [["a"]], body_text_named_params: [{ param_name: "a", example: "b" }] }
    }]), ["components", 0, "example", "body_text_named_params"]],
    ["a positional example that is not one list", create([{ type: "BODY", text: "x", example: { body_text: [["a"], ["b"]] } }]), [
      "components",
      0,
      "example",
      "body_text"
    ]],
    ["two BODY components", create([F.body, F.body]), ["components", 1, "type"]],
    ["two HEADER components", create([F.textHeader, F.textHeader, F.body]), ["components", 1, "type"]],
    ["two FOOTER components", create([F.body, F.footer, F.footer]), ["components", 2, "type"]],
    ["no BODY component", create([F.textHeader]), ["components"]],
    ["BODY without text for utility", create([{ type: "BODY" }]), ["components", 0, "text"]],
    ["BODY with text for authentication", create([{ type: "BODY", text: "x" }], { category: "authentication" }), [
      "components",
      0,
      "text"
    ]],
    ["add_security_recommendation outside authentication", create([{ ...F.body, add_security_recommendation: true }]), [
      "components",
      0,
      "add_security_recommendation"
    ]],
    ["an authentication FOOTER with text", create([{ type: "BODY" }, F.footer], { category: "authentication" }), [
      "components",
      1,
      "text"
    ]],
    ["an OTP button outside authentication", create([F.body, { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE" }] }]), [
      "components",
      1,
      "buttons",
      0,
      "type"
    ]],
    ["an empty BUTTONS list", create([F.body, { type: "BUTTONS", buttons: [] }]), ["components", 1, "buttons"]],
    ["a dynamic URL button without example", create([F.body, {
      type: "BUTTONS",
      buttons: [{ type: "URL", text: "Go", url: "https://x/{{1}}" }]
    }]), ["components", 1, "buttons", 0, "example"]],
    ["a COPY_CODE button without example", create([F.body, { type: "BUTTONS", buttons: [{ type: "COPY_CODE" }] }]), [
      "components",
      1,
      "buttons",
      0,
      "example"
    ]],
    ["an unknown component type", create([F.body, { type: "SIDEBAR" }]), ["components", 1, "type"]],
    ["NAMED format with a positional example", create([F.body], { parameter_format: "NAMED" }), [
      "components",
      0,
      "example",
      "body_text"
    ]],
    ["the legacy shape for authentication", {
      channel_id: 1,
      name: "otp",
      language_code: "en",
      category: "authentication",
      body_text: "x"
    }, ["components"]],
    ["neither body_text nor components", { channel_id: 1, name: "n", language_code: "en", category: "utility" }, ["body_text"]],
    ["variables beside components", create([F.body], { variables: ["a"] }), ["variables"]],
    ["parameter_format without components", {
      channel_id: 1,
      name: "n",
      language_code: "en",
      category: "utility",
      body_text: "x",
      parameter_format: "NAMED"
    }, ["parameter_format"]],
    ["an unknown category", create([F.body], { category: "promo" }), ["category"]],
    ["an unknown top-level field", create([F.body], { colour: "red" }), ["colour"]],
    ["an unknown field inside a component", create([{ ...F.body, colour: "red" }]), ["components", 0, "colour"]]
  ])("%s", (_name, input, path) => {
    expect(pathsOf(TemplateCreate, input)).toContainEqual(path)
  })
})

describe("TemplateCreate accepts", () => {
  it.each([
    ["a static URL button without example", create([F.body, { type: "BUTTONS", buttons: [{ type: "URL", text: "Go", url: "https://x" }] }])],
    ["a CAROUSEL with 2 cards", create([F.body, { type: "CAROUSEL", cards: cards(2) }])],
    ["a CAROUSEL with 10 cards", create([F.body, { type: "CAROUSEL", cards: cards(10) }])],
    ["footer code_expiration_minutes 1", create([], {
      category: "authentication",
      components: [{ type: "BODY" }, { type: "FOOTER", code_expiration_minutes: 1 }]
    })],
    ["footer code_expiration_minutes 90", create([], {
      category: "authentication",
      components: [{ type: "BODY" }, { type: "FOOTER", code_expiration_minutes: 90 }]
    })],
    ["a CATALOG button with passthrough fields", create([F.body, { type: "BUTTONS", buttons: [{ type: "CATALOG", any: { x: 1 } }] }])],
    ["body_text beside components (ignored at submit)", create([F.body], { body_text: "legacy" })]
  ])("%s", (_name, input) => {
    expect(pathsOf(TemplateCreate, input)).toStrictEqual([])
  })
})

describe("TemplatePatch", () => {
  it("checks category rules when category and components come together", () => {
    expect(pathsOf(TemplatePatch, { category: "authentication", components: [F.body] })).toContainEqual([
      "components",
      0,
      "text"
    ])
  })

  it("checks per-scope rules without a category", () => {
    expect(pathsOf(TemplatePatch, { components: [F.body, F.body] })).toContainEqual(["components", 1, "type"])
    expect(pathsOf(TemplatePatch, { components: [{ type: "BODY" }] })).toStrictEqual([])
  })

  it("rejects unknown fields", () => {
    expect(pathsOf(TemplatePatch, { name: "renamed" })).toContainEqual(["name"])
  })
})

describe("templateComponentIssues", () => {
  it("lets the server check a patch against the stored row's category", () => {
    const components = Schema.decodeUnknownSync(TemplatePatch)({ components: [{ type: "BODY" }] }).components!
    expect(templateComponentIssues(components, { category: "marketing" })).toStrictEqual([
      { path: [0, "text"], message: "BODY text is required for the marketing category" }
    ])
    expect(templateComponentIssues(components, { category: "authentication" })).toStrictEqual([])
  })
})

describe("Template response", () => {
  it("tolerates unmodelled card components in a CAROUSEL and keeps them", () => {
    const carousel = {
      type: "CAROUSEL",
      cards: [{ components: [F.imageHeader, { type: "BODY", text: "x" }, { type: "PRODUCT_BADGE", label: "new" }] }]
    }
    const input = { ...F.template, components: [F.body, carousel] }
    expect(Schema.encodeSync(Template)(Schema.decodeUnknownSync(Template)(input))).toStrictEqual(input)
  })

  it("drops unknown top-level fields instead of failing", () => {
    const decoded = Schema.decodeUnknownSync(Template)({ ...F.template, internal: 1 })
    expect(decoded).not.toHaveProperty("internal")
  })
})
