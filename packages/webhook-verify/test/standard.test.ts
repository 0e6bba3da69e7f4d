import { describe, expect, it } from "vitest"
import { verifyStandard, type VerifyStandardOptions } from "../src/index.js"
import { signStandard } from "../src/testing.js"
import { backends, OTHER_SECRET, SECRET, useBackend } from "./helpers.js"

const body = '{"text":"Olá 👋🏽"}'
const T = 1_736_937_000
const at = (seconds: number) => new Date(seconds * 1000)

describe.each(backends)("verifyStandard() with the %s backend", (_name, backend) => {
  useBackend(backend)

  it.each([
    ["exactly 300 s in the past", T - 300, true, undefined],
    ["exactly 300 s in the future", T + 300, true, undefined],
    ["301 s in the past", T - 301, false, "timestamp_too_old"],
    ["301 s in the future", T + 301, false, "timestamp_too_new"],
    ["an hour in the past", T - 3600, false, "timestamp_too_old"],
    ["an hour in the future", T + 3600, false, "timestamp_too_new"]
  ] as const)("with a timestamp %s gives ok=%s", async (_case, signedAt, ok, reason) => {
    const headers = await signStandard(SECRET, body, { id: "evt_1", timestamp: signedAt })
    const result = await verifyStandard(SECRET, body, headers, { now: at(T) })
    expect(result.ok).toBe(ok)
    if (reason !== undefined) expect(result).toMatchObject({ reason })
  })

  it("honours a custom tolerance in both directions", async () => {
    const past = await signStandard(SECRET, body, { timestamp: T - 20 })
    const future = await signStandard(SECRET, body, { timestamp: T + 20 })
    for (const [headers, tolerance, ok] of [[past, 10, false], [past, 30, true], [future, 10, false], [future, 30, true]] as const) {
      expect((await verifyStandard(SECRET, body, headers, { now: at(T), toleranceSeconds: tolerance })).ok).toBe(ok)
    }
  })

  it("never accepts a replayed delivery because now is an invalid Date: it throws instead", async () => {
    const replayed = await signStandard(SECRET, body, { id: "evt_1", timestamp: T - 86_400 })
    await expect(verifyStandard(SECRET, body, replayed, { now: new Date("not a date") })).rejects.toThrow(/now as a valid Date/)
  })

  it("uses the current time when now is not given", async () => {
    const headers = await signStandard(SECRET, body)
    expect((await verifyStandard(SECRET, body, headers)).ok).toBe(true)
  })

  it.each([
    ["webhook-id"],
    ["webhook-timestamp"],
    ["webhook-signature"]
  ])("reports missing_headers without %s", async (name) => {
    const headers: Record<string, string> = { ...(await signStandard(SECRET, body, { timestamp: T })) }
    delete headers[name]
    const result = await verifyStandard(SECRET, body, headers, { now: at(T) })
    expect(result).toMatchObject({ ok: false, reason: "missing_headers", message: expect.stringMatching(new RegExp(`^the ${name} header is missing`)) })
  })

  it("says a delivery with only X-Platform-Signature (a raw forward) is checked with verifyRawForward() or verify()", async () => {
    const result = await verifyStandard(SECRET, body, { "x-platform-signature": `sha256=${"0".repeat(64)}` }, { now: at(T) })
    expect(result).toMatchObject({ ok: false, reason: "missing_headers" })
    expect(result.ok ? "" : result.message).toMatch(/webhook-id, webhook-timestamp, webhook-signature headers are missing .*only X-Platform-Signature.*verifyRawForward\(\) or verify\(\)/)
  })

  it.each([["not-a-number"], ["1736937000.5"], ["-1736937000"], ["1e9"]])("reports invalid_timestamp for %s", async (timestamp) => {
    const headers = { ...(await signStandard(SECRET, body, { timestamp: T })), "webhook-timestamp": timestamp }
    expect(await verifyStandard(SECRET, body, headers, { now: at(T) })).toMatchObject({ ok: false, reason: "invalid_timestamp" })
  })

  it.each([
    ["a tampered body", (h: Record<string, string>) => h, `${body} `, "signature_mismatch"],
    ["a tampered id", (h: Record<string, string>) => ({ ...h, "webhook-id": "evt_2" }), body, "signature_mismatch"],
    ["a shifted timestamp", (h: Record<string, string>) => ({ ...h, "webhook-timestamp": String(T + 1) }), body, "signature_mismatch"],
    ["only a v1a signature", (h: Record<string, string>) => ({ ...h, "webhook-signature": h["webhook-signature"]!.replace("v1,", "v1a,") }), body, "malformed_signature"],
    ["a truncated signature", (h: Record<string, string>) => ({ ...h, "webhook-signature": h["webhook-signature"]!.slice(0, -4) }), body, "malformed_signature"],
    ["a signature that is not base64", (h: Record<string, string>) => ({ ...h, "webhook-signature": "v1,!!!!" }), body, "malformed_signature"]
  ] as const)("rejects %s with reason %s", async (_case, change, received, reason) => {
    const headers = change({ ...(await signStandard(SECRET, body, { id: "evt_1", timestamp: T })) })
    expect(await verifyStandard(SECRET, received, headers, { now: at(T) })).toMatchObject({ ok: false, reason })
  })

  it("accepts any one of several space-separated v1 signatures (secret rotation on the sender side)", async () => {
    const headers = await signStandard([OTHER_SECRET, SECRET], body, { id: "evt_1", timestamp: T })
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2)
    const withNoise = { ...headers, "webhook-signature": `v1a,abcd ${headers["webhook-signature"]}` }
    expect((await verifyStandard(SECRET, body, withNoise, { now: at(T) })).ok).toBe(true)
  })

  it("tries a list of receiver secrets and reports which matched", async () => {
    const headers = await signStandard(SECRET, body, { id: "evt_1", timestamp: T })
    expect(await verifyStandard([OTHER_SECRET, SECRET], body, headers, { now: at(T) })).toEqual({
      ok: true,
      id: "evt_1",
      timestamp: T,
      secretIndex: 1
    })
    expect(await verifyStandard([OTHER_SECRET], body, headers, { now: at(T) })).toMatchObject({ reason: "signature_mismatch" })
  })

  it.each([
    ["a Fetch Headers object", (h: Record<string, string>) => new Headers(h)],
    ["a record with mixed-case names", (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.replace("webhook", "Webhook"), v]))],
    ["a record with array values", (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, [v]]))]
  ])("reads the headers from %s", async (_case, wrap) => {
    const headers = await signStandard(SECRET, body, { timestamp: T })
    expect((await verifyStandard(SECRET, body, wrap({ ...headers }), { now: at(T) })).ok).toBe(true)
  })

  it("accepts a secret without the whsec_ prefix", async () => {
    const headers = await signStandard(SECRET, body, { timestamp: T })
    expect((await verifyStandard(SECRET.slice("whsec_".length), body, headers, { now: at(T) })).ok).toBe(true)
  })
})

describe("verifyStandard() misuse", () => {
  const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(T), "webhook-signature": "v1,AAAA" }

  it.each([
    ["a secret whose base64 part is invalid", "whsec_not base64!", body, headers, {}, /whsec_<base64>/],
    ["a secret with nothing after whsec_", "whsec_", body, headers, {}, /whsec_<base64>/],
    ["a negative tolerance", SECRET, body, headers, { toleranceSeconds: -1 }, /toleranceSeconds/],
    ["an invalid Date as now (new Date(undefined))", SECRET, body, headers, { now: new Date(Number.NaN) }, /now as a valid Date but got an invalid Date/],
    ["now as milliseconds instead of a Date", SECRET, body, headers, { now: T * 1000 }, /now as a valid Date but got number/],
    ["a parsed-object body", SECRET, { text: "hi" }, headers, {}, /already-parsed/],
    ["missing headers", SECRET, body, undefined, {}, /needs the request headers/],
    ["whitespace in the secret", `${SECRET} `, body, headers, {}, /whitespace/]
  ])("throws a package-prefixed TypeError for %s", async (_case, secret, rawBody, hdrs, options, message) => {
    const call = verifyStandard(secret, rawBody as string, hdrs as Record<string, string>, options as VerifyStandardOptions)
    await expect(call).rejects.toThrow(TypeError)
    await expect(call).rejects.toThrow(/^@platform\/webhook-verify: /)
    await expect(call).rejects.toThrow(message)
  })
})
