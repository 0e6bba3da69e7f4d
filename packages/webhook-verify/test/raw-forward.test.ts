import { describe, expect, it } from "vitest"
import { verifyRawForward } from "../src/index.js"
import { sign } from "../src/testing.js"
import { backends, platformVectors, useBackend } from "./helpers.js"

const vector = platformVectors.find((v) => v.name.startsWith("raw-forward"))!
const upstream = JSON.parse(vector.body) as unknown
const escapedAscii = JSON.stringify(upstream).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

describe.each(backends)("verifyRawForward() with the %s backend", (_name, backend) => {
  useBackend(backend)

  it.each([
    ["a correctly signed upstream body", vector.secret, vector.body, vector.header, { ok: true, signed: true }],
    ["an unsigned delivery for a channel without a secret (null)", null, vector.body, undefined, { ok: true, signed: false }],
    ["an unsigned delivery with an empty header and a null secret", null, vector.body, "", { ok: true, signed: false }],
    ["an unsigned delivery although a secret is expected", vector.secret, vector.body, undefined, { ok: false, reason: "unsigned" }],
    ["a signed delivery while no secret was given", null, vector.body, vector.header, { ok: false, reason: "secret_required" }],
    ["a body re-serialized with spaces after separators", vector.secret, JSON.stringify(upstream, null, 1), vector.header, { ok: false, reason: "signature_mismatch" }],
    ["a body with non-ASCII characters escaped", vector.secret, escapedAscii, vector.header, { ok: false, reason: "signature_mismatch" }],
    ["an uppercase hex signature", vector.secret, vector.body, vector.header.toUpperCase().replace("SHA256=", "sha256="), { ok: false, reason: "malformed_signature" }]
  ] as const)("reports %s", async (_case, secret, body, header, expected) => {
    expect(await verifyRawForward(secret, body, header)).toMatchObject(expected)
  })

  it("explains that an absent signature means the channel has no webhook_secret", async () => {
    const result = await verifyRawForward(vector.secret, vector.body, null)
    expect(result.ok === false && result.message).toMatch(/channel has no webhook_secret/)
  })

  it("verifies the exact UTF-8 bytes of the upstream body", async () => {
    const bytes = new TextEncoder().encode(vector.body)
    expect(await verifyRawForward(vector.secret, bytes, await sign(vector.secret, bytes))).toEqual({ ok: true, signed: true })
  })

  it.each([
    ["an empty secret", "", vector.body, /non-empty string/],
    ["whitespace in the secret", `${vector.secret}\n`, vector.body, /whitespace/],
    ["a parsed-object body", vector.secret, upstream, /already-parsed/]
  ])("throws a package-prefixed TypeError for %s", async (_case, secret, body, message) => {
    const call = verifyRawForward(secret, body as string, vector.header)
    await expect(call).rejects.toThrow(TypeError)
    await expect(call).rejects.toThrow(message)
  })
})
