import { describe, expect, it } from "@effect/vitest"
import { BroadcastCreate, BroadcastRecipientsLoad, SendMessage } from "@platform/shared"
import { issuesOf, pathsOf } from "./helpers.js"

/*
 * A broadcast sends a template to each recipient (DESIGN §5), so its template_name,
 * language_code and components follow the rules of a template send (SPEC §4.1): what
 * POST /messages refuses, a broadcast refuses at the same field.
 */
const draft = (fields: Record<string, unknown>) => ({
  name: "May promo",
  channel_id: 1,
  template_name: "promo",
  language_code: "en",
  ...fields
})
const load = (recipient: Record<string, unknown>) => ({ recipients: [{ to: "15550001", ...recipient }] })
const templateSend = (fields: Record<string, unknown>) => ({
  type: "template",
  channel_id: 1,
  to: "15550001",
  template_name: "promo",
  language_code: "en",
  ...fields
})

const body = (text: string) => ({ type: "body", parameters: [{ type: "text", text }] })
const header = { type: "header", parameters: [{ type: "text", text: "h" }] }
const button = (index: number | string) => ({
  type: "button",
  sub_type: "quick_reply",
  index,
  parameters: [{ type: "payload", payload: "p" }]
})
const card = (card_index: number, components: ReadonlyArray<unknown>) => ({ card_index, components })

/** [case, components, loc of the 422 inside components] */
const componentCases: ReadonlyArray<readonly [string, ReadonlyArray<unknown>, ReadonlyArray<PropertyKey>]> = [
  ["a second body", [body("a"), body("b")], [1, "type"]],
  ["a second header", [header, body("a"), header], [2, "type"]],
  ["two carousels", [
    { type: "carousel", cards: [card(0, [header]), card(1, [header])] },
    { type: "carousel", cards: [card(0, [header]), card(1, [header])] }
  ], [1, "type"]],
  ["two components for button 0 (0 and \"0\")", [button(0), button("0")], [1, "index"]],
  ["a card with a second header", [
    { type: "carousel", cards: [card(0, [header]), card(1, [header, header])] }
  ], [0, "cards", 1, "components", 1, "type"]],
  ["an empty text parameter", [body("")], [0, "parameters", 0, "text"]]
]

describe("broadcast draft: template fields as on a template send", () => {
  it.each([
    ["template_name of spaces", { template_name: "   " }, ["template_name"]],
    ["template_name of a tab", { template_name: "\t" }, ["template_name"]],
    ["language_code of spaces", { language_code: "  " }, ["language_code"]],
    ["language_code of a newline", { language_code: "\n" }, ["language_code"]]
  ])("%s is 422 at that field, as on POST /messages", (_name, fields, loc) => {
    expect(pathsOf(SendMessage, templateSend(fields))).toStrictEqual([loc])
    expect(pathsOf(BroadcastCreate, draft(fields))).toStrictEqual([loc])
  })

  it.each(componentCases)("components with %s are 422 at the repeat, as on POST /messages", (_name, components, loc) => {
    expect(pathsOf(SendMessage, templateSend({ components }))).toStrictEqual([["components", ...loc]])
    expect(pathsOf(BroadcastCreate, draft({ components }))).toStrictEqual([["components", ...loc]])
  })

  it("a draft whose components are not a list says so, as on POST /messages", () => {
    expect(issuesOf(BroadcastCreate, draft({ components: {} })).map(({ message, path }) => ({ message, path })))
      .toStrictEqual([{ path: ["components"], message: "must be a list of components" }])
  })

  it("a draft with one header, one body and one component per button index is valid", () => {
    expect(pathsOf(BroadcastCreate, draft({ components: [header, body("a"), button(0), button(1)] }))).toStrictEqual([])
  })
})

describe("broadcast recipients: per-recipient components and to as on a template send", () => {
  it.each(componentCases)("a recipient's components with %s are 422 at the repeat", (_name, components, loc) => {
    expect(pathsOf(BroadcastRecipientsLoad, load({ components }))).toStrictEqual([
      ["recipients", 0, "components", ...loc]
    ])
  })

  it.each([["spaces", "   "], ["a tab", "\t"]])("a recipient whose to is %s is 422 at its to, as on POST /messages", (_n, to) => {
    expect(pathsOf(SendMessage, templateSend({ to }))).toStrictEqual([["to"]])
    expect(pathsOf(BroadcastRecipientsLoad, load({ to }))).toStrictEqual([["recipients", 0, "to"]])
  })

  it("a recipient with one body and two distinct buttons is valid", () => {
    expect(pathsOf(BroadcastRecipientsLoad, load({ components: [body("a"), button(0), button(1)] }))).toStrictEqual([])
  })
})

describe("broadcast recipients: a load of the wrong shape says what is expected", () => {
  const messages = (input: unknown) =>
    issuesOf(BroadcastRecipientsLoad, input).map(({ message, path }) => ({ message, path }))

  it.each([["a string", "15550001"], ["null", null], ["a list", [{ to: "1" }]]])(
    "a recipient that is %s is 422 at it, 'must be an object with to and optional components'",
    (_n, recipient) => {
      expect(messages({ recipients: [{ to: "1" }, recipient] })).toStrictEqual([
        { path: ["recipients", 1], message: "must be an object with to and optional components" }
      ])
    }
  )

  it.each([["an object", { to: "1" }], ["null", null], ["a string", "1"]])(
    "recipients that are %s are 422 at recipients, 'must be a list of recipients'",
    (_n, recipients) => {
      expect(messages({ recipients })).toStrictEqual([{ path: ["recipients"], message: "must be a list of recipients" }])
    }
  )

  it("a recipient with a bad field is still 422 at that field, with its own message", () => {
    expect(messages({ recipients: [{ to: " " }] })).toStrictEqual([
      { path: ["recipients", 0, "to"], message: "must not be empty or only whitespace" }
    ])
    expect(messages({ recipients: [{ to: "1", extra: true }] })).toStrictEqual([
      { path: ["recipients", 0, "extra"], message: "is unexpected, expected: \"to\" | \"components\"" }
    ])
    expect(messages({ recipients: [] })).toStrictEqual([
      { path: ["recipients"], message: "must hold 1 to 1000 recipients" }
    ])
  })
})
