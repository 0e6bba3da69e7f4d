import { describe, expect, it } from "vitest"
import { verify, verifyWithFallback } from "../src/index.js"
import { sign } from "../src/testing.js"
import { backends, OTHER_SECRET, platformVectors, SECRET, useBackend } from "./helpers.js"

const vector = platformVectors[1]!
const hex = vector.header.slice("sha256=".length)
const flipped = (text: string, at: number) => text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 1) + text.slice(at + 1)

describe.each(backends)("verify() with the %s backend", (_name, backend) => {
  useBackend(backend)

  it.each([
    ["a tampered body byte", vector.secret, flipped(vector.body, 10), vector.header, "signature_mismatch"],
    ["a tampered signature digit", vector.secret, vector.body, `sha256=${flipped(hex, 0)}`, "signature_mismatch"],
    ["the wrong secret", OTHER_SECRET, vector.body, vector.header, "signature_mismatch"],
    ["re-serialized JSON instead of the raw body", vector.secret, JSON.stringify(JSON.parse(vector.body), null, 2), vector.header, "signature_mismatch"],
    ["a truncated signature", vector.secret, vector.body, vector.header.slice(0, -2), "malformed_signature"],
    ["an over-long signature", vector.secret, vector.body, `${vector.header}00`, "malformed_signature"],
    ["the sha1= prefix", vector.secret, vector.body, `sha1=${hex}`, "malformed_signature"],
    ["an uppercase prefix", vector.secret, vector.body, `SHA256=${hex}`, "malformed_signature"],
    ["no prefix at all", vector.secret, vector.body, `${hex}1234567`, "malformed_signature"],
    ["uppercase hex", vector.secret, vector.body, `sha256=${hex.toUpperCase()}`, "malformed_signature"],
    ["non-hex characters", vector.secret, vector.body, `sha256=${"zz" + hex.slice(2)}`, "malformed_signature"],
    ["non-ASCII characters in the digest", vector.secret, vector.body, `sha256=${"é" + hex.slice(1)}`, "malformed_signature"],
    ["a missing header (undefined)", vector.secret, vector.body, undefined, "missing_signature"],
    ["a missing header (null)", vector.secret, vector.body, null, "missing_signature"],
    ["an empty header", vector.secret, vector.body, "", "missing_signature"]
  ] as const)("rejects %s with reason %s", async (_case, secret, body, header, reason) => {
    const result = await verify(secret, body, header)
    expect(result).toMatchObject({ ok: false, reason })
    expect(result.ok === false && result.message.length > 10).toBe(true)
  })

  it("accepts an ArrayBuffer view other than Uint8Array", async () => {
    const bytes = new TextEncoder().encode(vector.body)
    expect((await verify(vector.secret, new DataView(bytes.buffer) as unknown as Uint8Array, vector.header)).ok).toBe(true)
  })

  it("accepts a Node Buffer body", async () => {
    expect((await verify(vector.secret, Buffer.from(vector.body), vector.header)).ok).toBe(true)
  })

  it("explains that the body must be exact bytes when the signature does not match", async () => {
    const result = await verify(vector.secret, `${vector.body} `, vector.header)
    expect(result.ok === false && result.message).toMatch(/exact raw bytes/)
  })
})

describe("verify() misuse", () => {
  it.each([
    ["a missing secret", undefined, vector.body, /non-empty string/],
    ["an empty secret", "", vector.body, /empty string/],
    ["a non-string secret", 42, vector.body, /non-empty string but got number/],
    ["leading whitespace in the secret", ` ${SECRET}`, vector.body, /whitespace/],
    ["a trailing newline in the secret", `${SECRET}\n`, vector.body, /whitespace/],
    ["a body already parsed into an object", SECRET, JSON.parse(vector.body), /already-parsed object.*raw request body.*express\.raw/],
    ["a null body", SECRET, null, /raw request body.*got null/],
    ["a numeric body", SECRET, 42, /got a number/]
  ])("throws a package-prefixed TypeError for %s", async (_case, secret, body, message) => {
    const call = verify(secret as string, body as string, vector.header)
    await expect(call).rejects.toThrow(TypeError)
    await expect(call).rejects.toThrow(/^@platform\/webhook-verify: /)
    await expect(call).rejects.toThrow(message)
  })

  it("throws a TypeError when the signature header is not a string", async () => {
    await expect(verify(SECRET, vector.body, ["sha256=00"] as unknown as string)).rejects.toThrow(
      /@platform\/webhook-verify: the signature header must be a string/
    )
  })
})

describe.each(backends)("verifyWithFallback() with the %s backend", (_name, backend) => {
  useBackend(backend)

  it.each([
    ["the current secret", [SECRET, OTHER_SECRET], SECRET, 0],
    ["the previous secret during rotation", [OTHER_SECRET, SECRET], SECRET, 1],
    ["the last of three secrets", ["whsec_a", "whsec_b", SECRET], SECRET, 2]
  ] as const)("matches %s and reports its index", async (_case, secrets, signer, index) => {
    const header = await sign(signer, vector.body)
    expect(await verifyWithFallback(secrets, vector.body, header)).toEqual({ ok: true, secretIndex: index })
  })

  it.each([
    ["uppercase hex", `sha256=${hex.toUpperCase()}`],
    ["a non-hex last digit", `sha256=${hex.slice(0, -1)}g`],
    ["a space inside the digits", `sha256=${hex.slice(0, 10)} ${hex.slice(11)}`]
  ])("reports %s as malformed (not a mismatch) with a rotation list too", async (_case, header) => {
    for (const secrets of [[OTHER_SECRET, vector.secret], [vector.secret, OTHER_SECRET], ["whsec_a", "whsec_b", "whsec_c"]]) {
      expect(await verifyWithFallback(secrets, vector.body, header)).toMatchObject({
        ok: false,
        reason: "malformed_signature",
        message: expect.stringMatching(/lowercase hex/)
      })
    }
  })

  it("reports a mismatch when no secret matches", async () => {
    expect(await verifyWithFallback(["whsec_a", "whsec_b"], vector.body, vector.header)).toMatchObject({
      ok: false,
      reason: "signature_mismatch"
    })
  })

  it.each([
    ["an empty list", [], /non-empty array/],
    ["a single string", SECRET, /needs an array of secrets/],
    ["a list with a blank secret", [SECRET, ""], /non-empty string/]
  ])("throws a TypeError for %s", async (_case, secrets, message) => {
    await expect(verifyWithFallback(secrets as string[], vector.body, vector.header)).rejects.toThrow(message)
  })

  it("throws a TypeError for a parsed-object body", async () => {
    await expect(verifyWithFallback([SECRET], {} as string, vector.header)).rejects.toThrow(/already-parsed/)
  })
})
