import { describe, expect, it } from "@effect/vitest"
import { compactJson, CompactJsonError, parseRawJson, rawMember } from "../../src/inbound/compact-json.js"
import { metaJsonStringify } from "../../src/upstream/hub-signature.js"

describe("compactJson", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["whitespace between tokens is removed", `{ "a" : [ 1 , 2 ] ,\n\t"b" : { } , "c": [ ] }`, `{"a":[1,2],"b":{},"c":[]}`],
    ["Meta's \\u escapes become the characters", `{"t":"A\\u00e7\\u00e3o j\\u00e1"}`, `{"t":"Ação já"}`],
    ["surrogate pairs become one emoji", `{"t":"\\ud83d\\ude00\\ud83d\\udc4d\\ud83c\\udffd"}`, `{"t":"😀👍🏽"}`],
    ["Arabic and Japanese stay literal", `{"t":"\\u0645\\u0631\\u062d\\u0628\\u0627 \\u3053\\u3093\\u306b\\u3061\\u306f"}`, `{"t":"مرحبا こんにちは"}`],
    ["\\/ is unescaped, @ written as \\u0040 too", `{"u":"https:\\/\\/x.y\\/z","e":"a\\u0040b.c"}`, `{"u":"https://x.y/z","e":"a@b.c"}`],
    ["quotes and backslashes stay escaped", `{"q":"say \\"hi\\" \\\\ ok"}`, `{"q":"say \\"hi\\" \\\\ ok"}`],
    ["control characters use JSON.stringify's escapes", `{"c":"a\\nb\\tc\\u0001d\\u001f\\b\\f\\r"}`, `{"c":"a\\nb\\tc\\u0001d\\u001f\\b\\f\\r"}`],
    ["a lone surrogate stays escaped", `{"s":"x\\ud83dy"}`, `{"s":"x\\ud83dy"}`],
    ["integers beyond 2^53 are kept digit for digit", `{"n":123456789012345678901234567890,"m":-9007199254740993}`, `{"n":123456789012345678901234567890,"m":-9007199254740993}`],
    ["number forms are kept as written", `[1.50, 1e5, 1E+05, -0, 0.1e-7, 100]`, `[1.50,1e5,1E+05,-0,0.1e-7,100]`],
    ["integer-like keys keep their order", `{"b":1,"2":2,"a":3,"1":4}`, `{"b":1,"2":2,"a":3,"1":4}`],
    ["literals", ` [true, false, null] `, `[true,false,null]`],
    ["U+2028 stays literal like JSON.stringify", `{"l":"\\u2028"}`, `{"l":"\u2028"}`]
  ]
  for (const [name, input, expected] of cases) {
    it(name, () => {
      expect(compactJson(input)).toBe(expected)
    })
  }

  it("matches JSON.stringify on Meta's escaped form of a realistic payload", () => {
    const payload = {
      object: "whatsapp_business_account",
      entry: [{ id: "102290129340398", changes: [{ field: "messages", value: {
        metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
        contacts: [{ profile: { name: "Zoë Ñandú 山田 محمد" }, wa_id: "16505551234" }],
        messages: [{ from: "16505551234", id: "wamid.HBgL==", timestamp: "1749416383", type: "text",
          text: { body: "Olá! 😀 \"quoted\" back\\slash /path\n新しい" } }]
      } }] }]
    }
    const wire = metaJsonStringify(payload)
    expect(wire).toMatch(/^[\x20-\x7e]+$/)
    expect(compactJson(wire)).toBe(JSON.stringify(payload))
    expect(compactJson(JSON.stringify(payload, null, 2))).toBe(JSON.stringify(payload))
  })

  it("rejects what is not JSON", () => {
    for (const bad of [`{"a":1,}`, `{"a" 1}`, `[01]`, `{"a":"\\x"}`, `"open`, `{"a":1} x`, `[1,]`, `nul`, `{"a":"\u0001"}`, ``]) {
      expect(() => compactJson(bad), bad).toThrow(CompactJsonError)
    }
  })

  it("keeps a tree whose nodes carry their compact text", () => {
    const tree = parseRawJson(`{ "entry" : [ {"id": "1"}, {"id":"2" } ] }`)
    const entry = rawMember(tree, "entry")
    expect(entry?.kind).toBe("array")
    expect(entry?.kind === "array" ? entry.items.map((i) => i.text) : []).toEqual([`{"id":"1"}`, `{"id":"2"}`])
  })
})
