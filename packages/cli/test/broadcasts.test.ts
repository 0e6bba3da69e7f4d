import { mockApi } from "@platform/test-support/mock-api"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()
const bcs = "/platform/v1/broadcasts"

const file = (name: string, text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), "platform-bc-")), name)
  writeFileSync(path, text)
  return path
}

const body = { type: "body", parameters: [{ type: "text", text: "Ada" }] }

describe("broadcasts add-recipients", () => {
  it.each([
    [
      "a CSV with a header: to and a components column of JSON",
      "r.csv",
      `to,components\n15550001111,"[{""type"":""body"",""parameters"":[{""type"":""text"",""text"":""Ada""}]}]"\n\n15550002222,\n`,
      [{ to: "15550001111", components: [body] }, { to: "15550002222" }]
    ],
    ["a CSV of numbers in the first column, no header", "r.txt", "15550001111,Ada\r\n15550002222\r\n", [{ to: "15550001111" }, { to: "15550002222" }]],
    [
      "a JSON array of numbers and objects",
      "r.json",
      JSON.stringify(["15550001111", { to: "15550002222", components: [body] }]),
      [{ to: "15550001111" }, { to: "15550002222", components: [body] }]
    ],
    ["a JSON {recipients} body", "r.json", JSON.stringify({ recipients: [{ to: "15550001111" }] }), [{ to: "15550001111" }]]
  ] as const)("loads %s", async (_name, name, text, recipients) => {
    api.on("post", `${bcs}/:id/recipients`, { json: { added: recipients.length, skipped: 0, recipient_count: recipients.length } })
    const ran = await cli(["broadcasts", "add-recipients", "51", "--file", file(name, text)])
    expect(ran.stderr).not.toMatch(/Error/)
    expect(ran.code).toBe(0)
    expect(api.calls).toHaveLength(1)
    expect(api.calls[0]!.path).toBe(`${bcs}/51/recipients`)
    expect(api.calls[0]!.body).toEqual({ recipients })
    expect(ran.stdout).toContain(`Added ${recipients.length} recipients to broadcast 51`)
  })

  it("a file of more than 1000 recipients is loaded 1000 at a time and the totals are summed (--json)", async () => {
    const numbers = Array.from({ length: 1005 }, (_, i) => `1555${String(i).padStart(7, "0")}`)
    api.on(
      "post",
      `${bcs}/:id/recipients`,
      { json: { added: 998, skipped: 2, recipient_count: 998 } },
      { json: { added: 5, skipped: 0, recipient_count: 1003 } }
    )
    const ran = await cli(["broadcasts", "add-recipients", "51", "--file", file("big.csv", numbers.join("\n")), "--json"])
    expect(ran.code).toBe(0)
    expect(api.calls.map((c) => (c.body as { recipients: unknown[] }).recipients.length)).toEqual([1000, 5])
    expect(JSON.parse(ran.stdout)).toEqual({ added: 1003, skipped: 2, recipient_count: 1003 })
  })

  it("a 422 at one recipient names the line of the file it came from", async () => {
    api.on("post", `${bcs}/:id/recipients`, {
      status: 422,
      json: { detail: [{ loc: ["body", "recipients", 1, "to"], msg: "must be at most 64 characters", type: "value_error", input: "1".repeat(70), ctx: {} }] }
    })
    const path = file("r.csv", `to\n15550001111\n${"1".repeat(70)}\n`)
    const ran = await cli(["broadcasts", "add-recipients", "51", "--file", path])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toContain(`${path} line 3 (to): must be at most 64 characters`)
  })

  it.each([
    ["a components cell that is not a JSON array", "r.csv", "to,components\n1555,{oops}\n", /r\.csv line 2: components must be a JSON array/],
    ["a file that is not JSON", "r.json", "[1555", /r\.json is not valid JSON/],
    ["an entry without to", "r.json", JSON.stringify([{ phone: "1555" }]), /r\.json entry 1: must be a recipient string or an object with to/],
    ["an empty file", "r.csv", "\n", /holds no recipients/]
  ] as const)("%s is a usage error (exit 2) before any request", async (_name, name, text, message) => {
    const ran = await cli(["broadcasts", "add-recipients", "51", "--file", file(name, text)])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(message)
    expect(api.calls).toHaveLength(0)
  })

  it("a missing file is a usage error naming it", async () => {
    const ran = await cli(["broadcasts", "add-recipients", "51", "--file", "/nonexistent/r.csv"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toContain("cannot read /nonexistent/r.csv: ENOENT")
  })
})

describe("broadcasts", () => {
  it("list prints a table for people", async () => {
    api.on("get", bcs, { json: { data: [f.broadcast], has_more: false, next_cursor: null } })
    const ran = await cli(["broadcasts", "list"])
    const lines = ran.stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^ID\s+NAME\s+CHANNEL\s+TEMPLATE\s+STATUS\s+RECIPIENTS\s+SCHEDULED\s+CREATED$/)
    expect(lines[1]).toMatch(/^51\s+May promo\s+7\s+may_promo \(en_US\)\s+draft\s+2\s+2025-05-01T09:00:00.000Z$/)
  })

  it("recipients prints the table and the counts per state; --json carries the counts", async () => {
    const page = { data: [f.broadcastRecipient], has_more: false, next_cursor: null, counts: f.broadcastRecipientCounts }
    api.on("get", `${bcs}/:id/recipients`, { json: page })
    const ran = await cli(["broadcasts", "recipients", "51"])
    expect(ran.stdout).toMatch(/15550001111\s+read\s+wamid\./)
    expect(ran.stderr).toContain("pending 0 · sent 0 · delivered 0 · read 1 · responded 0 · failed 1")
    const json = await cli(["broadcasts", "recipients", "51", "--json"])
    expect(JSON.parse(json.stdout)).toEqual(page)
  })

  it("create and send carry an Idempotency-Key, the given one with --idempotency-key", async () => {
    api.on("post", bcs, { status: 201, json: f.broadcast })
    api.on("post", `${bcs}/:id/send`, { status: 202, json: { ...f.broadcast, status: "sending" } })
    const draft = ["broadcasts", "create", "--name", "n", "--channel", "7", "--template", "t", "--language", "en_US"]
    await cli(draft)
    await cli([...draft, "--idempotency-key", "draft-1"])
    await cli(["broadcasts", "send", "51", "--idempotency-key", "send-51"])
    expect(api.calls[0]!.headers.get("idempotency-key")).toMatch(/.+/)
    expect(api.calls[1]!.headers.get("idempotency-key")).toBe("draft-1")
    expect(api.calls[2]!.headers.get("idempotency-key")).toBe("send-51")
  })

  it("a 422 on a draft's field names the flag the user typed", async () => {
    api.on("post", bcs, {
      status: 422,
      json: { detail: [{ loc: ["body", "template_name"], msg: "must not be empty or only whitespace", type: "value_error", input: " ", ctx: {} }] }
    })
    const ran = await cli(["broadcasts", "create", "--name", "n", "--channel", "7", "--template", " ", "--language", "en_US"])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("--template: must not be empty or only whitespace")
    expect(ran.stderr).not.toContain("body.template_name")
  })

  it.each([
    ["409 status_locked", "send", 409, { detail: { code: "status_locked", message: "a completed broadcast cannot be sent", status: "completed" } }, /409 status_locked: a completed broadcast cannot be sent/],
    ["403 plan_forbidden", "send", 403, { detail: { code: "plan_forbidden", message: "broadcasts are not available on the free plan; upgrade to lite or above" } }, /plan_forbidden: broadcasts are not available on the free plan/],
    ["422 no_recipients", "cancel", 422, { detail: { code: "no_recipients", message: "the broadcast has no recipients" } }, /no_recipients: the broadcast has no recipients/]
  ] as const)("a %s is reported readably (exit 1)", async (_name, verb, status, json, message) => {
    api.on("post", `${bcs}/:id/${verb}`, { status, json })
    const ran = await cli(["broadcasts", verb, "51"])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toMatch(message)
  })

  it.each([
    ["create without --template", ["create", "--name", "n", "--channel", "7", "--language", "en_US"], /--template/],
    ["schedule with a time without a zone", ["schedule", "51", "--at", "2030-06-01 09:00"], /--at.*ISO 8601/],
    ["get of a non-numeric id", ["get", "abc"], /must be a whole number/]
  ] as const)("%s is a usage error (exit 2)", async (_name, argv, message) => {
    const ran = await cli(["broadcasts", ...argv])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(message)
    expect(api.calls).toHaveLength(0)
  })
})
