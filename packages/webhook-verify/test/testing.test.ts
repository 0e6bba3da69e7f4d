import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { verify, verifyStandard } from "../src/index.js"
import { sign, signedHeaders, signStandard } from "../src/testing.js"
import { OTHER_SECRET, SECRET } from "./helpers.js"

const body = '{"text":"Olá 👋🏽"}'

describe("@platform/webhook-verify/testing", () => {
  it("sign() output verifies with verify()", async () => {
    expect((await verify(SECRET, body, await sign(SECRET, body))).ok).toBe(true)
  })

  it("signStandard() defaults to a random msg_ id and the current time", async () => {
    const before = Math.floor(Date.now() / 1000)
    const a = await signStandard(SECRET, body)
    const b = await signStandard(SECRET, body)
    expect(a["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(a["webhook-id"]).not.toBe(b["webhook-id"])
    expect(Number(a["webhook-timestamp"])).toBeGreaterThanOrEqual(before)
  })

  it("signStandard() accepts the timestamp as a Date or as unix seconds", async () => {
    const fromDate = await signStandard(SECRET, body, { id: "evt_1", timestamp: new Date(1_700_000_000_900) })
    const fromSeconds = await signStandard(SECRET, body, { id: "evt_1", timestamp: 1_700_000_000 })
    expect(fromDate).toEqual(fromSeconds)
    expect(fromDate["webhook-timestamp"]).toBe("1700000000")
  })

  it("signStandard() with two secrets yields two signatures, each verifying with the standardwebhooks package", async () => {
    const headers = await signStandard([SECRET, OTHER_SECRET], body)
    expect(() => new Webhook(SECRET).verify(body, { ...headers })).not.toThrow()
    expect(() => new Webhook(OTHER_SECRET).verify(body, { ...headers })).not.toThrow()
  })

  it("signedHeaders() builds every header of a normalized delivery for a whsec_ secret", async () => {
    const headers = await signedHeaders(SECRET, body, { event: "message.received", deliveryId: 5, id: "evt_abc" })
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "Service-Platform/1.0",
      "x-platform-event": "message.received",
      "x-platform-event-id": "evt_abc",
      "x-platform-delivery-id": "5",
      "webhook-id": "evt_abc"
    })
    expect((await verify(SECRET, body, headers["x-platform-signature"])).ok).toBe(true)
    expect((await verifyStandard(SECRET, body, headers)).ok).toBe(true)
  })

  it("signedHeaders() uses the generated webhook-id as event id when none is given", async () => {
    const headers = await signedHeaders(SECRET, body)
    expect(headers["x-platform-event-id"]).toBe(headers["webhook-id"])
  })

  it("signedHeaders() omits the Standard Webhooks headers for a secret that is not whsec_", async () => {
    const headers = await signedHeaders("It's a Secret to Everybody", body)
    expect(Object.keys(headers).filter((k) => k.startsWith("webhook-"))).toEqual([])
    expect(headers["x-platform-event-id"]).toBeUndefined()
  })

  it.each([
    ["sign() with an empty secret", () => sign("", body), /non-empty string/],
    ["sign() with a parsed object", () => sign(SECRET, {} as string), /already-parsed/],
    ["signStandard() with no secrets", () => signStandard([], body), /non-empty array/],
    ["signStandard() with a blank secret in the list", () => signStandard([SECRET, " "], body), /whitespace/],
    ["signStandard() with an invalid whsec_ secret", () => signStandard("whsec_***", body), /whsec_<base64>/],
    ["signedHeaders() with whitespace in the secret", () => signedHeaders(`${SECRET}\n`, body), /whitespace/]
  ])("%s throws a package-prefixed TypeError", async (_case, call, message) => {
    await expect(call()).rejects.toThrow(TypeError)
    await expect(call()).rejects.toThrow(message)
  })
})
