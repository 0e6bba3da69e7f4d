import { hasEvent, startRealServer, startReceiver, type RealServer, type Receiver } from "@platform/test-support/real-server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cli, configHome } from "./support/cli.js"

// One real server (sandbox upstream) and a loopback receiver subscribed to every event type.
let server: RealServer
let receiver: Receiver
let home: string
const ALL = [
  "message.received", "message.sent", "message.delivered", "message.read", "message.failed", "message.echo",
  "conversation.created", "conversation.ended", "conversation.inactive", "channel.connected", "channel.disconnected", "template.status_changed"
]
beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startRealServer(), startReceiver()])
  home = configHome()
  const login = await cli(["login", "--email", server.email, "--password-stdin"], { env: env(), stdin: (async function* () { yield `${server.password}\n` })() })
  expect(login.code, login.stderr).toBe(0)
  const sub = await cli(["subscriptions", "create", "--url", receiver.url, "--events", ALL.join(","), "--inactivity-minutes", "1"], { env: env() })
  expect(sub.code, sub.stderr).toBe(0)
  // A channel connect needs a free slot: the free plan has one channel.
  expect((await server.dashboard("POST", "/platform/dashboard/billing/plan", { plan: "pro" })).status).toBe(200)
}, 120_000)
afterAll(async () => {
  await Promise.all([server?.close(), receiver?.close()])
})

const env = () => ({ XDG_CONFIG_HOME: home, PLATFORM_API_KEY: server.apiKey, PLATFORM_BASE_URL: server.baseUrl })

describe("platform trigger against the sandbox", () => {
  it.each(ALL.filter((t) => t !== "conversation.inactive"))("trigger %s makes the event reach the receiver through the real pipeline", async (type) => {
    const before = receiver.received.length
    const ran = await cli(["trigger", type, "--json"], { env: env() })
    expect(ran.code, ran.stderr).toBe(0)
    const out = JSON.parse(ran.stdout) as { event_type: string; channel_id: number; events: string[] }
    expect(out).toMatchObject({ event_type: type })
    expect(out.events).toContain(type)
    await receiver.next((r) => receiver.received.indexOf(r) >= before && hasEvent(type)(r), 20_000)
  }, 30_000)

  it("trigger conversation.inactive opens an idle conversation and says when the event follows", async () => {
    const ran = await cli(["trigger", "conversation.inactive"], { env: env() })
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toMatch(/✓ conversation\.inactive: opened a conversation with 1555\d{7} and left it idle on channel \d+/)
    expect(ran.stderr).toMatch(/conversation\.inactive comes later: subscription \d+ \(1 min\) gets it/)
  })

  it("an unknown event type is a usage error listing the 12", async () => {
    const ran = await cli(["trigger", "message.recieved"], { env: env() })
    expect(ran.code).toBe(2)
    expect(ran.stderr).toContain("message.received")
  })

  it("without a dashboard session it says to log in", async () => {
    const ran = await cli(["trigger", "message.sent"], { env: { ...env(), XDG_CONFIG_HOME: configHome() } })
    expect(ran.code).toBe(4)
    expect(ran.stderr).toContain("run `platform login --email")
  })
})
