import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthenticationError, Platform } from "../src/index.js"
import { startRealServer, type RealServer } from "./support/real-server.js"

let server: RealServer
beforeAll(async () => {
  server = await startRealServer()
}, 120_000)
afterAll(async () => server?.close())

describe("against the real server", () => {
  it("channels.list returns the connected sandbox channel, with rate-limit headers read", async () => {
    const client = new Platform({ apiKey: server.apiKey, baseUrl: server.baseUrl, maxRetries: 0 })
    const channels = await client.channels.list()
    expect(server.channelId).toBeTypeOf("number")
    expect(channels.map((c) => c.channel_id)).toContain(server.channelId)
    expect(channels[0]).toMatchObject({ type: "chat", status: "active" })
    expect(JSON.stringify(channels)).not.toMatch(/token/i)
    expect(client.lastRequestId).toBeTypeOf("string")
    expect(client.rateLimit).toMatchObject({ limit: expect.any(Number), remaining: expect.any(Number), reset: expect.any(Number) })
  })

  it("a wrong key is an AuthenticationError with status 401, code unauthorized and a request id", async () => {
    const client = new Platform({ apiKey: "pk_live_wrongwrongwrongwrongwrongwrong", baseUrl: server.baseUrl, maxRetries: 0 })
    const error = await client.channels.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(error).toMatchObject({ status: 401, code: "unauthorized" })
    expect((error as AuthenticationError).requestId).toBeTypeOf("string")
  })
})
