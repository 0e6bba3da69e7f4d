import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods"
import { Webhook } from "standardwebhooks"
import { afterEach, describe, expect, it, vi } from "vitest"
import { verify, verifyStandard } from "../src/index.js"
import { sign, signStandard } from "../src/testing.js"
import { backends, platformVectors, standardVectors, useBackend } from "./helpers.js"

const encode = (text: string) => new TextEncoder().encode(text)

describe("the shared vectors file", () => {
  it("contains GitHub's published vector", () => {
    expect(platformVectors).toContainEqual(
      expect.objectContaining({
        secret: "It's a Secret to Everybody",
        body: "Hello, World!",
        header: "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
      })
    )
  })

  it("contains the Standard Webhooks published vector", () => {
    expect(standardVectors[0]!.signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  })

  it("contains bodies with non-ASCII text and emoji", () => {
    const nonAscii = platformVectors.filter((v) => /[^\x00-\x7f]/.test(v.body))
    expect(nonAscii.length).toBeGreaterThanOrEqual(3)
    expect(nonAscii.some((v) => /\p{Extended_Pictographic}/u.test(v.body))).toBe(true)
  })
})

describe.each(backends)("X-Platform-Signature vectors with the %s backend", (_name, backend) => {
  useBackend(backend)

  it.each(platformVectors)("sign() reproduces the header of $name", async (vector) => {
    expect(await sign(vector.secret, vector.body)).toBe(vector.header)
    expect(await sign(vector.secret, encode(vector.body))).toBe(vector.header)
  })

  it.each(platformVectors)("verify() accepts $name as string, Uint8Array and ArrayBuffer", async (vector) => {
    const bytes = encode(vector.body)
    for (const body of [vector.body, bytes, bytes.slice().buffer]) {
      expect(await verify(vector.secret, body, vector.header)).toEqual({ ok: true, secretIndex: 0 })
    }
  })

  it.each(platformVectors)("@octokit/webhooks-methods verifies the header of $name", async (vector) => {
    expect(await octokitVerify(vector.secret, vector.body, vector.header)).toBe(true)
  })

  it.each(platformVectors)("a signature made by @octokit/webhooks-methods for $name verifies with ours", async (vector) => {
    const header = await octokitSign(vector.secret, vector.body)
    expect(await verify(vector.secret, vector.body, header)).toEqual({ ok: true, secretIndex: 0 })
  })
})

describe.each(backends)("Standard Webhooks vectors with the %s backend", (_name, backend) => {
  useBackend(backend)
  afterEach(() => {
    vi.useRealTimers()
  })

  const headersOf = (v: (typeof standardVectors)[number]) => ({
    "webhook-id": v.id,
    "webhook-timestamp": String(v.timestamp),
    "webhook-signature": v.signature
  })

  it.each(standardVectors)("signStandard() reproduces the signature of $name", async (vector) => {
    const headers = await signStandard(vector.secret, vector.body, { id: vector.id, timestamp: vector.timestamp })
    expect(headers).toEqual(headersOf(vector))
  })

  it.each(standardVectors)("verifyStandard() accepts $name", async (vector) => {
    const result = await verifyStandard(vector.secret, encode(vector.body), headersOf(vector), {
      now: new Date(vector.timestamp * 1000)
    })
    expect(result).toEqual({ ok: true, id: vector.id, timestamp: vector.timestamp, secretIndex: 0 })
  })

  it.each(standardVectors)("the standardwebhooks package verifies $name and signs it identically", async (vector) => {
    vi.useFakeTimers({ toFake: ["Date"], now: vector.timestamp * 1000 })
    const webhook = new Webhook(vector.secret)
    expect(webhook.sign(vector.id, new Date(vector.timestamp * 1000), vector.body)).toBe(vector.signature)
    expect(() => webhook.verify(vector.body, headersOf(vector))).not.toThrow()
  })

  it.each(standardVectors)("a signature made by the standardwebhooks package for $name verifies with ours", async (vector) => {
    const at = new Date(vector.timestamp * 1000 + 1000)
    const signature = new Webhook(vector.secret).sign(vector.id, at, vector.body)
    const headers = { "webhook-id": vector.id, "webhook-timestamp": String(vector.timestamp + 1), "webhook-signature": signature }
    expect((await verifyStandard(vector.secret, vector.body, headers, { now: at })).ok).toBe(true)
  })

  it.each(standardVectors)("our signStandard() output for $name verifies with the standardwebhooks package at the current time", async (vector) => {
    const headers = await signStandard(vector.secret, vector.body)
    expect(() => new Webhook(vector.secret).verify(vector.body, { ...headers })).not.toThrow()
  })
})
