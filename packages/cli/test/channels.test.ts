import { mockApi, type Reply } from "@platform/test-support/mock-api"
import { describe, expect, it } from "vitest"
import { cli } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()
const ch = "/platform/v1/channels"

interface Case {
  readonly argv: ReadonlyArray<string>
  readonly route: readonly ["get" | "post" | "delete", string]
  readonly reply: Reply
  readonly method: string
  readonly path: string
  readonly body?: unknown
}

const cases: ReadonlyArray<Case> = [
  { argv: ["channels", "health", "7"], route: ["get", `${ch}/:id/health`], reply: { json: f.channelHealth }, method: "GET", path: `${ch}/7/health` },
  { argv: ["channels", "profile", "7"], route: ["get", `${ch}/:id/profile`], reply: { json: f.channelProfile }, method: "GET", path: `${ch}/7/profile` },
  {
    argv: ["channels", "profile", "7", "--about", "Open 9 to 5", "--website", "https://a.example/?x=1,2", "--website", "https://b.example", "--picture-handle", "4::aW1h"],
    route: ["post", `${ch}/:id/profile`],
    reply: { json: f.channelProfile },
    method: "POST",
    path: `${ch}/7/profile`,
    body: { about: "Open 9 to 5", websites: ["https://a.example/?x=1,2", "https://b.example"], profile_picture_handle: "4::aW1h" }
  },
  { argv: ["channels", "display-name", "7"], route: ["get", `${ch}/:id/display-name`], reply: { json: f.channelDisplayName }, method: "GET", path: `${ch}/7/display-name` },
  {
    argv: ["channels", "block", "7", "+1 555 000 1111", "15550003333"],
    route: ["post", `${ch}/:id/block-users`],
    reply: { json: { channel_id: 7, succeeded: [{ user: "+1 555 000 1111", wa_id: "15550001111" }, { user: "15550003333", wa_id: "15550003333" }], failed: [] } },
    method: "POST",
    path: `${ch}/7/block-users`,
    body: { users: ["+1 555 000 1111", "15550003333"] }
  },
  {
    argv: ["channels", "unblock", "7", "15550003333"],
    route: ["delete", `${ch}/:id/block-users`],
    reply: { json: { channel_id: 7, succeeded: [{ user: "15550003333", wa_id: "15550003333" }], failed: [] } },
    method: "DELETE",
    path: `${ch}/7/block-users`,
    body: { users: ["15550003333"] }
  },
  { argv: ["channels", "two-factor", "7", "--pin", "135790"], route: ["post", `${ch}/:id/two-factor`], reply: { json: f.twoFactorResult }, method: "POST", path: `${ch}/7/two-factor`, body: { pin: "135790" } }
]

const named = cases.map((c) => ({ ...c, cmd: c.argv.slice(0, 2).join(" ") }))

describe("channels commands", () => {
  it.each(named)("platform $cmd sends $method $path with the arguments and options as fields", async (c) => {
    api.on(c.route[0], c.route[1], c.reply)
    const ran = await cli(c.argv)
    expect(ran.stderr).not.toMatch(/Error/)
    expect(ran.code).toBe(0)
    expect(api.calls).toHaveLength(1)
    const call = api.calls[0]!
    expect([call.method, call.path]).toEqual([c.method, c.path])
    expect(call.query).toEqual({})
    expect(call.body).toEqual(c.body)
    expect(call.headers.get("x-api-key")).toBe("pk_test_key")
  })

  it.each(named)("platform $cmd --json prints the API's answer as one JSON document", async (c) => {
    api.on(c.route[0], c.route[1], c.reply)
    const ran = await cli([...c.argv, "--json"])
    expect(ran.code).toBe(0)
    expect(JSON.parse(ran.stdout)).toEqual("json" in c.reply ? c.reply.json : undefined)
  })

  it("health prints the overall state and a row per entity with its errors and notes", async () => {
    api.on("get", `${ch}/:id/health`, { json: f.channelHealth })
    const ran = await cli(["channels", "health", "7"])
    expect(ran.stdout).toBe(
      "Channel 7 can send messages: LIMITED\n" +
        "ENTITY        CAN SEND   DETAILS\n" +
        "PHONE_NUMBER  AVAILABLE  -\n" +
        "WABA          LIMITED    141006: There is an error with the payment method.: Update the payment method.; " +
        "Your WhatsApp Business Account has reached its messaging limit.\n"
    )
  })

  it("profile prints the profile's fields, and says which fields an update changed", async () => {
    api.on("post", `${ch}/:id/profile`, { json: f.channelProfile })
    const ran = await cli(["channels", "profile", "7", "--email", "help@example.com"])
    expect(ran.code).toBe(0)
    expect(ran.stderr).toBe("✓ Updated email of channel 7's profile\n")
    expect(ran.stdout).toBe(
      [
        "channel      7",
        "about        Open 9 to 5",
        "address      1 Main St",
        "description  -",
        "email        help@example.com",
        "vertical     RETAIL",
        "websites     https://example.com",
        "picture      -",
        ""
      ].join("\n")
    )
  })

  it("block prints a row per user and exits 1 naming how many the upstream refused", async () => {
    api.on("post", `${ch}/:id/block-users`, { json: f.blockUsersResult })
    const ran = await cli(["channels", "block", "7", "+1 555 000 1111", "15550002222"])
    expect(ran.code).toBe(1)
    expect(ran.stdout).toBe(
      "USER             RESULT   WA_ID / REASON\n" +
        "+1 555 000 1111  blocked  15550001111\n" +
        "15550002222      failed   131047 Re-engagement required: User has not messaged in the last 24 hours\n"
    )
    expect(ran.stderr).toBe("Error: the upstream refused to block 1 of 2 user(s)\n")
    const json = await cli(["channels", "block", "7", "+1 555 000 1111", "15550002222", "--json"])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual(f.blockUsersResult)
  })

  it("two-factor reads the PIN from stdin when --pin is not given and never prints it", async () => {
    api.on("post", `${ch}/:id/two-factor`, { json: f.twoFactorResult })
    async function* stdin() {
      yield "246813\n"
    }
    const ran = await cli(["channels", "two-factor", "7"], { stdin: stdin() })
    expect(ran.code).toBe(0)
    expect(api.calls[0]!.body).toEqual({ pin: "246813" })
    expect(ran.stdout).toBe("✓ Two-step verification PIN set for channel 7\n")
    expect(ran.stdout + ran.stderr).not.toContain("246813")
  })

  it("two-factor typed at a terminal reads the PIN with echo off (raw mode), restored afterwards", async () => {
    api.on("post", `${ch}/:id/two-factor`, { json: f.twoFactorResult })
    const modes: Array<boolean> = []
    const terminal = {
      isTTY: true,
      setRawMode: (mode: boolean) => {
        modes.push(mode)
        return terminal
      },
      async *[Symbol.asyncIterator]() {
        // What a terminal in raw mode delivers: each key, a backspace (DEL) fixing a typo, Enter as CR.
        for (const key of ["2", "4", "6", "9", "\u007f", "8", "1", "3", "\r"]) yield key
      }
    }
    const ran = await cli(["channels", "two-factor", "7"], { stdin: terminal })
    expect(ran.code, ran.stderr).toBe(0)
    expect(api.calls[0]!.body).toEqual({ pin: "246813" })
    expect(modes).toEqual([true, false])
    expect(ran.stdout + ran.stderr).not.toContain("246813")
  })

  it("two-factor without --pin and with nothing on stdin is a usage error (exit 2) before any request", async () => {
    const ran = await cli(["channels", "two-factor", "7"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toBe("Error: No PIN given: pass --pin or give it on stdin.\n")
    expect(api.calls).toHaveLength(0)
  })

  it("a 422 names the flag or argument the user typed: --pin, --website, <users> value 2", async () => {
    const issue = (loc: ReadonlyArray<string | number>, msg: string) => ({ loc, msg, type: "value_error", input: null, ctx: {} })
    api.on("post", `${ch}/:id/two-factor`, { status: 422, json: { detail: [issue(["body", "pin"], "must be exactly 6 digits")] } })
    const pin = await cli(["channels", "two-factor", "7", "--pin", "12345"])
    expect(pin.code).toBe(1)
    expect(pin.stderr).toContain("--pin: must be exactly 6 digits")
    expect(pin.stderr).not.toContain("12345")

    api.on("post", `${ch}/:id/profile`, { status: 422, json: { detail: [issue(["body", "websites"], "must hold at most 2 websites")] } })
    const sites = await cli(["channels", "profile", "7", "--website", "a", "--website", "b", "--website", "c"])
    expect(sites.stderr).toContain("--website: must hold at most 2 websites")

    api.on("post", `${ch}/:id/block-users`, { status: 422, json: { detail: [issue(["body", "users", 1], "must not be empty or only whitespace")] } })
    const users = await cli(["channels", "block", "7", "15550001111", " "])
    expect(users.stderr).toContain("<users> value 2: must not be empty or only whitespace")
  })

  it("a 400 chat_only and the 502 of an upstream failure are readable errors (exit 1)", async () => {
    api.on("get", `${ch}/:id/health`, { status: 400, json: { detail: { code: "chat_only", message: "channel operations other than inbound are supported only on chat channels" } } })
    const social = await cli(["channels", "health", "8"])
    expect(social.code).toBe(1)
    expect(social.stderr).toBe("Error: 400 chat_only: channel operations other than inbound are supported only on chat channels\n")
    api.on("get", `${ch}/:id/display-name`, {
      status: 502,
      json: { detail: { code: "upstream_error", message: "display-name read failed at the upstream: Session has expired", error: "auth", meta_code: 190, meta_subcode: 463, meta_title: "Access token has expired", fbtrace_id: "AfT" } },
      // A read is retried on a 5xx; no waiting between the attempts here.
      headers: { "retry-after-ms": "0" }
    })
    const upstream = await cli(["channels", "display-name", "7"])
    expect(upstream.code).toBe(1)
    expect(upstream.stderr).toContain("502 upstream_error: display-name read failed at the upstream: Session has expired")
  })
})
