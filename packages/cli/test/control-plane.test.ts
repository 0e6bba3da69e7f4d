import { startRealServer, type RealServer } from "@platform/test-support/real-server"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cli, configHome, type CliOptions } from "./support/cli.js"

// One real server for the file; each test signs in with its own config directory, like a fresh terminal.
let server: RealServer
beforeAll(async () => {
  server = await startRealServer()
}, 120_000)
afterAll(async () => {
  await server?.close()
})

/** The environment of a developer with no API key, so only what `login` stores counts. */
const env = (home: string) => ({ XDG_CONFIG_HOME: home, PLATFORM_API_KEY: undefined, PLATFORM_BASE_URL: server.baseUrl })
const lines = (...text: string[]) =>
  (async function* () {
    for (const t of text) yield `${t}\n`
  })()
/** A stdin that says it is a terminal, answering the prompt with `text`. */
const terminal = (text: string): AsyncIterable<string> => Object.assign(lines(text), { isTTY: true })

const signedIn = async (): Promise<(argv: ReadonlyArray<string>, options?: CliOptions) => ReturnType<typeof cli>> => {
  const home = configHome()
  const login = await cli(["login", "--email", server.email, "--password-stdin"], { env: env(home), stdin: lines(server.password) })
  expect(login.code, login.stderr).toBe(0)
  return (argv, options = {}) => cli(argv, { ...options, env: { ...env(home), ...options.env } })
}

describe("control plane from the terminal, against the real server", () => {
  it("login --email keeps a dashboard session in the profile; whoami shows the account, e-mail, plan and credentials", async () => {
    const home = configHome()
    const login = await cli(["login", "--email", server.email, "--password-stdin"], { env: env(home), stdin: lines(server.password) })
    expect(login.code, login.stderr).toBe(0)
    expect(login.stdout).toContain(`Signed in to ${server.baseUrl} as ${server.email}`)
    expect(login.stdout).not.toContain(server.password)
    const stored = JSON.parse(readFileSync(join(home, "platform", "config.json"), "utf8"))
    expect(stored.profiles.default.session).toMatchObject({ email: server.email, cookie: expect.stringMatching(/^access_token_dev=/), expires_at: expect.any(String) })

    const who = await cli(["whoami", "--json"], { env: env(home) })
    expect(who.code, who.stderr).toBe(0)
    expect(JSON.parse(who.stdout)).toMatchObject({ email: server.email, plan: "free", role: "owner", session: { email: server.email }, api_key: null })
    const table = await cli(["whoami"], { env: { ...env(home), PLATFORM_API_KEY: server.apiKey } })
    expect(table.stdout).toMatch(new RegExp(`e-mail\\s+${server.email.replace(/[.]/g, "\\.")}`))
    expect(table.stdout).toMatch(/plan\s+free/)
    expect(table.stdout).toMatch(/api key\s+pk_live_\S*…\S+ \(from env\)/)
  })

  it("a wrong password exits 4; the prompt reads the password from the terminal", async () => {
    const wrong = await cli(["login", "--email", server.email, "--password-stdin"], { env: env(configHome()), stdin: lines("not-the-password") })
    expect(wrong.code).toBe(4)
    expect(wrong.stderr).toContain("wrong e-mail or password")
    const prompted = await cli(["login", "--email", server.email], { env: env(configHome()), stdin: lines(server.password) })
    expect(prompted.code, prompted.stderr).toBe(0)
    expect(prompted.stderr).toContain(`Password for ${server.email}:`)
  })

  it.each([["keys", "list"], ["billing"], ["channels", "connect"], ["webhooks", "raw-forward", "1"]])(
    "%s without a session exits 4 and says to run platform login --email",
    async (...argv) => {
      const ran = await cli(argv, { env: env(configHome()) })
      expect(ran.code).toBe(4)
      expect(ran.stderr).toContain("run `platform login --email <your e-mail>`")
    }
  )

  it("an expired session is named as such, with the same hint", async () => {
    const home = configHome()
    const session = { cookie: server.cookie, email: server.email, expires_at: "2020-01-01T00:00:00.000Z" }
    const path = join(home, "platform")
    await import("node:fs/promises").then((fs) => fs.mkdir(path, { recursive: true }))
    writeFileSync(join(path, "config.json"), JSON.stringify({ profiles: { default: { session } } }))
    const ran = await cli(["billing"], { env: env(home) })
    expect(ran.code).toBe(4)
    expect(ran.stderr).toContain(`The dashboard session of ${server.email} expired at 2020-01-01T00:00:00.000Z: run \`platform login --email`)
  })

  it("keys create shows the key once with its scopes, expiry and rate limit; the key works; update and delete change it", async () => {
    const run = await signedIn()
    const created = await run(["keys", "create", "--name", "ci", "--scopes", "read:channels", "--expires-at", "30d", "--rate-limit", "5"])
    expect(created.code, created.stderr).toBe(0)
    const key = /(pk_live_[0-9A-Za-z]{32,})/.exec(created.stdout)![1]!
    expect(created.stdout).toMatch(/rate limit\s+5 requests\/min/)
    expect(created.stdout).toMatch(/scopes\s+read:channels/)
    expect(created.stderr).toContain("shown this once")
    const id = Number(/Created API key (\d+)/.exec(created.stdout)![1])

    const listed = await cli(["channels", "list", "--json"], { env: { PLATFORM_API_KEY: key, PLATFORM_BASE_URL: server.baseUrl } })
    expect(listed.code, listed.stderr).toBe(0)
    const table = await run(["keys", "list"])
    expect(table.stdout).toMatch(new RegExp(`\\n${id}\\s+ci\\s+pk_live_\\S*…\\s+yes\\s+5\\s+20\\d\\d-`))
    expect(table.stdout).not.toContain(key)

    const updated = await run(["keys", "update", String(id), "--inactive", "--rate-limit", "7", "--json"])
    expect(JSON.parse(updated.stdout)).toMatchObject({ id, is_active: false, rate_limit_per_minute: 7 })
    const refused = await cli(["channels", "list"], { env: { PLATFORM_API_KEY: key, PLATFORM_BASE_URL: server.baseUrl } })
    expect(refused.code).toBe(4)

    const unconfirmed = await run(["keys", "delete", String(id)])
    expect(unconfirmed.code).toBe(2)
    expect(unconfirmed.stderr).toContain("Pass --yes")
    const deleted = await run(["keys", "delete", String(id), "--yes"])
    expect(deleted).toMatchObject({ code: 0, stdout: `✓ Deleted API key ${id}\n` })
    expect((await run(["keys", "list"])).stdout).not.toMatch(new RegExp(`\\n${id}\\s+ci`))
  })

  it("keys create --save stores the new key in the profile; a 429 is announced on stderr with the wait in seconds", async () => {
    const run = await signedIn()
    const created = await run(["keys", "create", "--name", "tiny", "--rate-limit", "1", "--save"])
    expect(created.code, created.stderr).toBe(0)
    expect((await run(["channels", "list"])).code).toBe(0)
    const controller = new AbortController()
    const limited = await run(["channels", "list"], {
      signal: controller.signal,
      onStderr: (text) => (/waiting \d+ s/.test(text) ? controller.abort() : undefined)
    })
    expect(limited.stderr).toMatch(/Rate limited \(429\): waiting \d+ s before retrying GET \/platform\/v1\/channels/)
    expect(limited.code).toBe(130)
  })

  it("billing shows the plan and this month's usage against its quotas", async () => {
    const run = await signedIn()
    const ran = await run(["billing"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toMatch(/^Plan free, usage for \d{4}-\d{2}/)
    expect(ran.stdout).toMatch(/\ninbound messages\s+\d+\s+1,000\s+\d+%/)
    expect(ran.stdout).toMatch(/\nchannels\s+1\s+1\s+100%/)
    const json = JSON.parse((await run(["billing", "--json"])).stdout)
    expect(json).toMatchObject({ plan: "free", limits: { channels: 1 }, usage: { channels: 1 } })
  })

  it("channels connect fills the sandbox flow in; disconnect asks for confirmation unless --yes", async () => {
    const run = await signedIn()
    expect((await server.dashboard("POST", "/platform/dashboard/billing/plan", { plan: "pro" })).status).toBe(200)
    const connected = await run(["channels", "connect", "--json"])
    expect(connected.code, connected.stderr).toBe(0)
    const channel = JSON.parse(connected.stdout)
    expect(channel).toMatchObject({ type: "chat", phone_number_id: expect.stringMatching(/^\d+$/), waba_id: expect.stringMatching(/^WABA/) })
    const human = await run(["channels", "connect"])
    expect(human.stdout).toMatch(/✓ Connected chat channel \d+ \(sandbox\)/)

    const declined = await run(["channels", "disconnect", String(channel.channel_id)], { stdin: terminal("n") })
    expect(declined.code).toBe(1)
    expect(declined.stderr).toContain(`Disconnect channel ${channel.channel_id}? It stops sending and receiving messages. [y/N]`)
    const accepted = await run(["channels", "disconnect", String(channel.channel_id)], { stdin: terminal("y") })
    expect(accepted).toMatchObject({ code: 0, stdout: `✓ Disconnected channel ${channel.channel_id}\n` })
    const second = Number(/channel (\d+)/.exec(human.stdout)![1])
    expect((await run(["channels", "disconnect", String(second), "--yes"])).code).toBe(0)
    expect((await server.dashboard("POST", "/platform/dashboard/billing/plan", { plan: "free" })).status).toBe(200)
  })

  it("webhooks raw-forward sets a URL and shows the secret once; a later get shows the URL but not the secret", async () => {
    const run = await signedIn()
    const id = String(server.channelId)
    const set = await run(["webhooks", "raw-forward", id, "--url", "https://127.0.0.1:9443/raw"])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toMatch(/raw forward\s+https:\/\/127\.0\.0\.1:9443\/raw/)
    expect(set.stdout).toMatch(/signing secret\s+\S{16,}/)
    expect(set.stderr).toContain("shown this once")
    const got = await run(["webhooks", "raw-forward", id])
    expect(got.stdout).toMatch(/raw forward\s+https:\/\/127\.0\.0\.1:9443\/raw\n/)
    expect(got.stdout).toContain("set (shown only when created)")
    const off = await run(["webhooks", "raw-forward", id, "--off", "--json"])
    expect(JSON.parse(off.stdout)).toMatchObject({ webhook_url: null, has_webhook_secret: false })
  })

  it("logout revokes the session and forgets it; the next dashboard command says to log in", async () => {
    const run = await signedIn()
    const out = await run(["logout"])
    expect(out).toMatchObject({ code: 0, stdout: `✓ Signed out: forgot the dashboard session of ${server.email} (profile default).\n` })
    const after = await run(["keys", "list"])
    expect(after.code).toBe(4)
    expect(after.stderr).toContain("has no dashboard session: run `platform login --email")
  })
})
