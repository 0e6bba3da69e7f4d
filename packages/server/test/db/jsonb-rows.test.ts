import { describe, expect, it } from "@effect/vitest"
import { newEventId } from "../../src/outbox/events.js"
import { jsonbRows } from "../../src/db/jsonb-rows.js"

describe("jsonbRows", () => {
  it("is plain JSON when no string holds U+0000", () => {
    const rows = [{ i: 0, body: "Olá 😀 \\ \" / é", payload: { n: [1, 2.5, null] } }]
    expect(jsonbRows(rows)).toBe(JSON.stringify(rows))
  })

  it("turns U+0000 into U+FFFD at any depth, and leaves the six characters \\u0000 alone", () => {
    const text = jsonbRows([{ body: "a\u0000b", payload: { nested: ["\u0000"] }, path: "C:\\u0000" }])
    expect(JSON.parse(text)).toEqual([{ body: "a\uFFFDb", payload: { nested: ["\uFFFD"] }, path: "C:\\u0000" }])
  })

  it("turns lone surrogates into U+FFFD, in values and keys, and keeps surrogate pairs and the text \\ud800", () => {
    const text = jsonbRows([{ body: "a\ud800b\udc00", payload: { "k\ud83d": ["\udfff"], "x\u0000": 1, ok: "😀" }, path: "C:\\ud800" }])
    expect(JSON.parse(text)).toEqual([{ body: "a\uFFFDb\uFFFD", payload: { "k\uFFFD": ["\uFFFD"], "x\uFFFD": 1, ok: "😀" }, path: "C:\\ud800" }])
  })
})

describe("newEventId", () => {
  it("is evt_ and 32 lowercase hex characters, distinct across many pool refills", () => {
    const ids = Array.from({ length: 2_000 }, newEventId)
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{32}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("starts with its creation time in milliseconds (12 hex), so ids of later milliseconds sort after", () => {
    const before = Date.now()
    const first = newEventId()
    const after = Date.now()
    const ms = parseInt(first.slice(4, 16), 16)
    expect(ms).toBeGreaterThanOrEqual(before)
    expect(ms).toBeLessThanOrEqual(after)
    while (Date.now() <= ms) {
      // the next millisecond
    }
    const second = newEventId()
    expect(parseInt(second.slice(4, 16), 16)).toBeGreaterThan(ms)
    expect([second, first].sort()).toEqual([first, second])
  })
})
