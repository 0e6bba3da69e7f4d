import { mockApi } from "@platform/test-support/mock-api"
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cli, configHome } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()

const withProfile = (profiles: Record<string, Record<string, string>>): string => {
  const home = configHome()
  mkdirSync(join(home, "platform"), { recursive: true })
  writeFileSync(join(home, "platform", "config.json"), JSON.stringify({ profiles }), { mode: 0o600 })
  return home
}

describe("settings precedence: flag > env > profile > default", () => {
  const stored = { default: { api_key: "pk_profile", base_url: "http://api.test" }, staging: { api_key: "pk_staging", base_url: "http://api.test" } }
  it.each([
    ["the flag beats env and profile", ["--api-key", "pk_flag"], { PLATFORM_API_KEY: "pk_env" }, "pk_flag"],
    ["env beats the profile", [], { PLATFORM_API_KEY: "pk_env" }, "pk_env"],
    ["the profile is used when neither is set", [], { PLATFORM_API_KEY: undefined }, "pk_profile"],
    ["--profile selects another profile", ["--profile", "staging"], { PLATFORM_API_KEY: undefined }, "pk_staging"],
    ["PLATFORM_PROFILE selects another profile", [], { PLATFORM_API_KEY: undefined, PLATFORM_PROFILE: "staging" }, "pk_staging"]
  ] as const)("%s", async (_name, flags, env, key) => {
    api.on("get", "/platform/v1/channels", { json: [] })
    const ran = await cli(["channels", "list", ...flags], { env: { ...env, PLATFORM_BASE_URL: undefined, XDG_CONFIG_HOME: withProfile(stored) } })
    expect(ran.code).toBe(0)
    expect(api.calls[0]!.headers.get("x-api-key")).toBe(key)
  })

  it("the base URL follows the same order, defaulting to http://localhost:8080", async () => {
    const seen: string[] = []
    const fetch: typeof globalThis.fetch = async (input) => {
      seen.push(new URL(input instanceof Request ? input.url : String(input)).origin)
      return Response.json([])
    }
    const { run } = await import("../src/index.js")
    const sink = { write: () => true }
    const home = withProfile({ default: { base_url: "http://profile.test" } })
    await run(["channels", "list", "--base-url", "http://flag.test"], { stdout: sink, stderr: sink, fetch, env: { PLATFORM_API_KEY: "k", PLATFORM_BASE_URL: "http://env.test", XDG_CONFIG_HOME: home } })
    await run(["channels", "list"], { stdout: sink, stderr: sink, fetch, env: { PLATFORM_API_KEY: "k", PLATFORM_BASE_URL: "http://env.test", XDG_CONFIG_HOME: home } })
    await run(["channels", "list"], { stdout: sink, stderr: sink, fetch, env: { PLATFORM_API_KEY: "k", XDG_CONFIG_HOME: home } })
    await run(["channels", "list"], { stdout: sink, stderr: sink, fetch, env: { PLATFORM_API_KEY: "k", XDG_CONFIG_HOME: configHome() } })
    expect(seen).toEqual(["http://flag.test", "http://env.test", "http://profile.test", "http://localhost:8080"])
  })
})

describe("a base URL that is not an absolute http(s) URL", () => {
  it.each([
    ["--base-url", ["--base-url", "localhost:8080"], {}, {}, /^--base-url must be an absolute http:\/\/ or https:\/\/ URL such as http:\/\/localhost:8080, got "localhost:8080"$/],
    ["PLATFORM_BASE_URL", [], { PLATFORM_BASE_URL: "api.example.com" }, {}, /^PLATFORM_BASE_URL must be an absolute .* got "api.example.com"$/],
    ["the profile's base_url", [], { PLATFORM_BASE_URL: undefined }, { default: { base_url: "ftp://files.test" } }, /^base_url of profile default in .*config.json must be an absolute .* got "ftp:\/\/files.test"$/]
  ] as const)("from %s is a usage error (exit 2) that names where it came from, and calls no API", async (_name, flags, env, profiles, message) => {
    for (const argv of [["channels", "list"], ["login", "--api-key", "pk_live_abcdefghijklmnop"], ["sandbox", "inbound", "--channel", "7", "--from", "1555", "--text", "hi", "--email", "a@b.test", "--password", "pw"]]) {
      const home = withProfile(profiles)
      const ran = await cli([...argv, ...flags, "--json"], { env: { ...env, XDG_CONFIG_HOME: home } })
      expect(ran.code).toBe(2)
      expect((JSON.parse(ran.stderr) as { error: { message: string } }).error.message).toMatch(message)
      expect(JSON.parse(readFileSync(join(home, "platform", "config.json"), "utf8"))).toEqual({ profiles })
    }
    expect(api.calls).toHaveLength(0)
  })
})

describe("login", () => {
  it("checks the key, then stores it in the profile file with mode 0600", async () => {
    api.on("get", "/platform/v1/channels", { json: [f.channel] })
    const home = configHome()
    const ran = await cli(["login", "--api-key", "pk_live_abcdefghijklmnop", "--profile", "work"], { env: { PLATFORM_API_KEY: undefined, XDG_CONFIG_HOME: home } })
    expect(ran.code).toBe(0)
    expect(api.calls[0]!.headers.get("x-api-key")).toBe("pk_live_abcdefghijklmnop")
    const path = join(home, "platform", "config.json")
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ profiles: { work: { api_key: "pk_live_abcdefghijklmnop", base_url: "http://api.test" } } })
    expect(ran.stdout).toMatch(/Logged in to http:\/\/api.test as profile work with key pk_live_…mnop/)
    expect(ran.stdout).not.toContain("abcdefghijklmnop")
  })

  it("reads the key from stdin when none is given", async () => {
    api.on("get", "/platform/v1/channels", { json: [] })
    const home = configHome()
    async function* stdin() {
      yield "pk_from_stdin_123\n"
    }
    const ran = await cli(["login"], { env: { PLATFORM_API_KEY: undefined, XDG_CONFIG_HOME: home }, stdin: stdin() })
    expect(ran.code).toBe(0)
    expect(api.calls[0]!.headers.get("x-api-key")).toBe("pk_from_stdin_123")
  })

  it("a key typed or pasted at a terminal is read with echo off (raw mode), restored afterwards, and never printed", async () => {
    api.on("get", "/platform/v1/channels", { json: [] })
    const home = configHome()
    const modes: Array<boolean> = []
    const terminal = {
      isTTY: true,
      setRawMode: (mode: boolean) => {
        modes.push(mode)
        return terminal
      },
      async *[Symbol.asyncIterator]() {
        // A paste arrives in one chunk; Enter as CR.
        yield "pk_live_pastedkey0000003"
        yield "\r"
      }
    }
    const ran = await cli(["login"], { env: { PLATFORM_API_KEY: undefined, XDG_CONFIG_HOME: home }, stdin: terminal })
    expect(ran.code, ran.stderr).toBe(0)
    expect(api.calls[0]!.headers.get("x-api-key")).toBe("pk_live_pastedkey0000003")
    expect(modes).toEqual([true, false])
    expect(ran.stdout + ran.stderr).not.toContain("pastedkey0000003")
  })

  it("a key on stdin replaces the profile's stored key (the stored one is neither checked nor kept)", async () => {
    api.on("get", "/platform/v1/channels", { json: [] })
    const home = withProfile({ default: { api_key: "pk_live_oldkey0000001", base_url: "http://api.test" } })
    async function* stdin() {
      yield "pk_live_newkey0000002\n"
    }
    const ran = await cli(["login"], { env: { PLATFORM_API_KEY: undefined, PLATFORM_BASE_URL: undefined, XDG_CONFIG_HOME: home }, stdin: stdin() })
    expect(ran.code).toBe(0)
    expect(api.calls.map((c) => c.headers.get("x-api-key"))).toEqual(["pk_live_newkey0000002"])
    expect(JSON.parse(readFileSync(join(home, "platform", "config.json"), "utf8")).profiles.default.api_key).toBe("pk_live_newkey0000002")
    expect(ran.stdout).toMatch(/with key pk_live_…0002/)
  })

  it("a rejected key exits 4 and stores nothing", async () => {
    api.on("get", "/platform/v1/channels", { status: 401, json: f.unauthorized })
    const home = configHome()
    const ran = await cli(["login", "--api-key", "pk_bad"], { env: { XDG_CONFIG_HOME: home } })
    expect(ran.code).toBe(4)
    expect(() => statSync(join(home, "platform", "config.json"))).toThrow()
  })

  it("a valid key without read:channels (403) is accepted with a note", async () => {
    api.on("get", "/platform/v1/channels", { status: 403, json: { detail: { code: "missing_scope", message: "no", required_scope: "read:channels" } } })
    const ran = await cli(["login", "--api-key", "pk_live_limitedkey99"])
    expect(ran.code).toBe(0)
    expect(ran.stdout).toMatch(/lacks read:channels/)
  })
})
