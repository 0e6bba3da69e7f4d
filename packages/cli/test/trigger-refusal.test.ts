import { mockApi } from "@platform/test-support/mock-api"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cli, configHome } from "./support/cli.js"

// A server with UPSTREAM=meta answers its sandbox-only route 404 with this message (channels/sandbox-inbound.ts).
const api = mockApi()

describe("platform trigger against a real upstream", () => {
  it.each(["message.sent", "channel.connected"])("trigger %s is refused, and nothing is sent or connected", async (type) => {
    const home = configHome()
    mkdirSync(join(home, "platform"), { recursive: true })
    writeFileSync(join(home, "platform", "config.json"), JSON.stringify({ profiles: { default: { session: { cookie: "access_token_dev=x", email: "dev@example.com" } } } }))
    api.on("post", "/platform/dashboard/sandbox/inbound", {
      status: 404,
      json: { detail: { code: "not_found", message: "the sandbox upstream is not enabled on this server (UPSTREAM=meta)" } }
    })
    const ran = await cli(["trigger", type], { env: { XDG_CONFIG_HOME: home } })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain("works only against the sandbox upstream: this server talks to the real upstream (UPSTREAM=meta)")
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(["POST /platform/dashboard/sandbox/inbound"])
    expect(api.calls[0]!.headers.get("cookie")).toBe("access_token_dev=x")
    expect(api.calls[0]!.headers.get("x-api-key")).toBeNull()
  })
})
