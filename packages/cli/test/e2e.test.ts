import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startRealServer, type RealServer } from "../../sdk/test/support/real-server.js"
import { cli, configHome } from "./support/cli.js"

let server: RealServer
beforeAll(async () => {
  server = await startRealServer()
}, 120_000)
afterAll(async () => server?.close())

const env = () => ({ PLATFORM_API_KEY: server.apiKey, PLATFORM_BASE_URL: server.baseUrl })

describe("against the real server", () => {
  it("channels list --json prints the account's channels as one JSON document", async () => {
    const ran = await cli(["channels", "list", "--json"], { env: env() })
    expect(ran.code).toBe(0)
    const channels = JSON.parse(ran.stdout) as Array<{ channel_id: number; type: string }>
    expect(channels.map((c) => c.channel_id)).toContain(server.channelId)
  })

  it("channels list prints a table", async () => {
    const ran = await cli(["channels", "list"], { env: env() })
    expect(ran.code).toBe(0)
    expect(ran.stdout).toMatch(new RegExp(`^ID\\s+TYPE[\\s\\S]*\\n${server.channelId}\\s+chat\\s`))
  })

  it("a rejected key exits 4", async () => {
    const ran = await cli(["channels", "list"], { env: { ...env(), PLATFORM_API_KEY: "pk_live_wrongwrongwrongwrongwrongwrong" } })
    expect(ran.code).toBe(4)
    expect(ran.stderr).toMatch(/401 unauthorized/)
  })

  it("sandbox inbound injects a message through the dashboard route and prints its upstream id", async () => {
    const dashboard = { PLATFORM_DASHBOARD_EMAIL: server.email, PLATFORM_DASHBOARD_PASSWORD: server.password }
    const ran = await cli(["sandbox", "inbound", "--channel", String(server.channelId), "--from", "15551234567", "--text", "hi from the cli", "--json"], {
      env: { ...env(), ...dashboard }
    })
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toEqual({ message_id: expect.stringMatching(/^wamid\./) })
    const missing = await cli(["sandbox", "inbound", "--channel", "99999999", "--from", "15551234567", "--text", "x"], { env: { ...env(), ...dashboard } })
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toMatch(/Channel 99999999 was not found/)
  })

  it("login checks the key against the server and stores the profile", async () => {
    const home = configHome()
    const ran = await cli(["login", "--api-key", server.apiKey, "--base-url", server.baseUrl], { env: { XDG_CONFIG_HOME: home, PLATFORM_API_KEY: undefined, PLATFORM_BASE_URL: undefined } })
    expect(ran.code).toBe(0)
    const config = JSON.parse(readFileSync(join(home, "platform", "config.json"), "utf8")) as { profiles: Record<string, unknown> }
    expect(config.profiles.default).toEqual({ api_key: server.apiKey, base_url: server.baseUrl })
    const again = await cli(["channels", "list", "--json"], { env: { XDG_CONFIG_HOME: home, PLATFORM_API_KEY: undefined, PLATFORM_BASE_URL: undefined } })
    expect(again.code).toBe(0)
  })
})
