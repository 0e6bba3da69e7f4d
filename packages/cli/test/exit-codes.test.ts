import { mockApi } from "@platform/test-support/mock-api"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { cli } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()
const issue = { loc: ["body", "to"], msg: "must not be empty", type: "value_error", input: "", ctx: {} }

describe("exit codes", () => {
  it.each([
    ["a 401 from the API", 401, f.unauthorized, 4, /API key missing, invalid, inactive or expired.*platform login/],
    ["a 422 from the API", 422, { detail: [issue] }, 1, /invalid \(422\)[\s\S]*body\.to: must not be empty/],
    ["a 404 from the API", 404, { detail: { code: "not_found", message: "not found" } }, 1, /404 not_found: not found/],
    ["a 403 missing scope", 403, { detail: { code: "missing_scope", message: "the API key lacks the scope", required_scope: "send:messages" } }, 1, /send:messages scope/]
  ] as const)("%s exits %i with a diagnosis on stderr", async (_name, status, body, code, message) => {
    api.on("post", "/platform/v1/messages", { status, json: body, headers: { "x-request-id": "req_9" } })
    const ran = await cli(["send", "text", "--channel", "7", "--to", "1555", "--text", "hi"])
    expect(ran.code).toBe(code)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toMatch(message)
    expect(ran.stderr).toContain("request id: req_9")
  })

  it("a 502 with a hint prints the upstream error, then the hint on a line of its own (and in --json)", async () => {
    const hint = "More than 24 hours have passed since the recipient last wrote to you; send an approved template (type: template)."
    const body = { error: "reengagement_required", meta_code: 131047, meta_subcode: null, meta_title: "Re-engagement message", message: "(#131047) Re-engagement message", fbtrace_id: null, hint }
    api.on("post", "/platform/v1/messages", { status: 502, json: body, headers: { "x-request-id": "req_502" } })
    const ran = await cli(["send", "text", "--channel", "7", "--to", "15550131047", "--text", "hi"])
    expect(ran.code).toBe(1)
    expect(ran.stdout).toBe("")
    expect(ran.stderr.split("\n").slice(0, 3)).toEqual([
      "Error: 502 (#131047) Re-engagement message",
      `  hint: ${hint}`,
      "  request id: req_502"
    ])
    const json = await cli(["send", "text", "--channel", "7", "--to", "15550131047", "--text", "hi", "--json"])
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { status: 502, code: "upstream_error", hint, body } })
  })

  it("--json errors go to stderr as one JSON object and stdout stays empty", async () => {
    api.on("post", "/platform/v1/messages", { status: 422, json: { detail: [issue] } })
    const ran = await cli(["send", "text", "--channel", "7", "--to", "1555", "--text", "hi", "--json"])
    expect(ran.code).toBe(1)
    expect(ran.stdout).toBe("")
    expect(JSON.parse(ran.stderr)).toMatchObject({ error: { exit_code: 1, status: 422, code: "validation_error", body: { detail: [issue] } } })
  })

  it("a 422 on a query parameter names the flag the user typed (--events value 2), not the API's query.event_types.1", async () => {
    const bad = { loc: ["query", "event_types", 1], msg: 'Expected a known event type, actual "mesage.sent"', type: "value_error", input: "message.read,mesage.sent", ctx: {} }
    api.on("get", "/platform/v1/events/stream", { status: 422, json: { detail: [bad] } })
    const tail = await cli(["events", "tail", "--events", "message.read,mesage.sent"])
    expect(tail.code).toBe(1)
    expect(tail.stderr).toContain('--events value 2: Expected a known event type, actual "mesage.sent"')
    expect(tail.stderr).not.toContain("query.event_types")
    const forwarding = await cli(["listen", "--forward-to", "http://127.0.0.1:9/hook", "--events", "message.read,mesage.sent", "--secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
    expect(forwarding.code).toBe(1)
    expect(forwarding.stderr).toContain("--events value 2: Expected a known event type")
    // The machine-readable body stays the server's.
    const json = await cli(["events", "tail", "--events", "message.read,mesage.sent", "--json"])
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { status: 422, body: { detail: [bad] } } })
  })

  it("a 422 on a query parameter the command has no flag for keeps the API's location", async () => {
    const limit = { loc: ["query", "limit"], msg: "Expected at most 200", type: "value_error", input: "500", ctx: {} }
    api.on("get", "/platform/v1/webhooks/deliveries", { status: 422, json: { detail: [limit] } })
    expect((await cli(["deliveries", "list", "--limit", "500"])).stderr).toContain("--limit: Expected at most 200")
    const include = { loc: ["query", "include"], msg: 'Expected "full_envelope"', type: "value_error", input: "x", ctx: {} }
    api.on("get", "/platform/v1/webhooks/deliveries/5", { status: 422, json: { detail: [include] } })
    const got = await cli(["deliveries", "get", "5", "--full-envelope"])
    expect(got.code).toBe(1)
    expect(got.stderr).toContain('query.include: Expected "full_envelope"')
  })

  const usageErrors = [
    ["an unknown command", ["sned"], /unknown command 'sned'/],
    ["an unknown option", ["channels", "list", "--bogus"], /unknown option '--bogus'/],
    ["a missing required option", ["send", "text", "--channel", "7", "--to", "1555"], /required option '--text <text>' not specified/],
    ["a non-numeric id", ["subscriptions", "get", "abc"], /must be a whole number/],
    ["an invalid choice", ["send", "media", "--channel", "7", "--to", "1", "--type", "gif", "--id", "m"], /Allowed choices are image, video, audio, document, sticker/],
    ["two media sources", ["send", "media", "--channel", "7", "--to", "1", "--type", "image", "--id", "m", "--link", "https://x.test/a.png"], /exactly one of --link, --id or --file/],
    ["media upload with neither a path nor --url", ["media", "upload", "--channel", "7"], /^give the file to upload \(a path\) or --url <url>$|^Error: give the file to upload \(a path\) or --url <url>\n$/],
    ["media upload with a path and --url", ["media", "upload", "a.png", "--channel", "7", "--url", "https://x.test/a.png", "--mime-type", "image/png"], /give a file path or --url, not both/],
    ["deliveries list --mode meta with --subscription", ["deliveries", "list", "--mode", "meta", "--subscription", "3"], /--subscription and --event-type filter normalized deliveries only/],
    ["deliveries list --mode meta with --event-type", ["deliveries", "list", "--mode", "meta", "--event-type", "message.sent"], /--subscription and --event-type filter normalized deliveries only/],
    ["an update without fields", ["subscriptions", "update", "11"], /nothing to update/],
    ["channels inbound without --on or --off", ["channels", "inbound", "7"], /exactly one of --on or --off/],
    ["channels inbound with --on and --off", ["channels", "inbound", "7", "--on", "--off"], /exactly one of --on or --off/],
    ["conversations update without --status", ["conversations", "update", "31"], /required option '--status <status>' not specified/],
    ["a relative --forward-to", ["listen", "--forward-to", "localhost:3000"], /must be an absolute URL|--forward-to/],
    ["an unknown help topic", ["help", "nope"], /no help topic or command "nope"/]
  ] as const

  it.each(usageErrors)("%s is a usage error (exit 2) and calls no API", async (_name, argv, message) => {
    const ran = await cli(argv)
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(message)
    expect(api.calls).toHaveLength(0)
  })

  it.each(usageErrors)("with --json, %s is one JSON object on stderr (exit 2)", async (_name, argv, message) => {
    const ran = await cli([...argv, "--json"])
    expect(ran.code).toBe(2)
    expect(ran.stdout).toBe("")
    const error = (JSON.parse(ran.stderr) as { error: { message: string; exit_code: number } }).error
    expect(error).toEqual({ message: expect.stringMatching(message), exit_code: 2 })
    expect(error.message).not.toMatch(/^error:/)
  })

  it.each([
    ["platform send", ["send"], "platform send needs a command: text, template, media, reaction, location, interactive, contacts, catalog, typing (see `platform send --help`)"],
    ["platform subscriptions", ["subscriptions"], "platform subscriptions needs a command: create, list, get, update, delete, resume, rotate-secret, test (see `platform subscriptions --help`)"]
  ])("with --json, %s without its subcommand is one JSON error on stderr naming the commands (exit 2), not the help text", async (_name, argv, message) => {
    const ran = await cli([...argv, "--json"])
    expect(ran).toMatchObject({ code: 2, stdout: "" })
    expect(JSON.parse(ran.stderr)).toEqual({ error: { message, exit_code: 2 } })
    const people = await cli(argv)
    expect(people.code).toBe(2)
    expect(people.stderr).toMatch(/^Usage: platform /)
  })

  it.each([
    ["media upload of a missing file", (dir: string) => ["media", "upload", join(dir, "missing.png"), "--channel", "7"], (dir: string) => `${join(dir, "missing.png")}: no such file (ENOENT)`],
    ["media upload of a directory", (dir: string) => ["media", "upload", dir, "--channel", "7"], (dir: string) => `${dir}: it is a directory, not a file`],
    ["send media --file of a missing file", (dir: string) => ["send", "media", "--channel", "7", "--to", "1", "--type", "image", "--file", join(dir, "x.png")], (dir: string) => `${join(dir, "x.png")}: no such file (ENOENT)`]
  ])("%s is an invalid argument (exit 2) naming the path and the cause, and calls no API", async (_name, argv, message) => {
    const dir = mkdtempSync(join(tmpdir(), "platform-cli-media-"))
    const ran = await cli(argv(dir))
    expect(ran.code).toBe(2)
    expect(ran.stderr).toBe(`Error: cannot upload ${message(dir)}\n`)
    expect(api.calls).toHaveLength(0)
  })

  it("no API key anywhere exits 4 and says how to configure one", async () => {
    const ran = await cli(["channels", "list"], { env: { PLATFORM_API_KEY: undefined } })
    expect(ran.code).toBe(4)
    expect(ran.stderr).toMatch(/No API key.*--api-key.*PLATFORM_API_KEY.*platform login/)
  })

  it.each([
    ["channels list", ["channels", "list"]],
    ["sandbox inbound", ["sandbox", "inbound", "--channel", "7", "--from", "1555", "--text", "hi", "--email", "dev@example.com", "--password", "pw"]]
  ])("an unreachable server makes %s exit 1 and names the cause", async (_name, argv) => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
    const ran = await cli(argv, { env: { PLATFORM_BASE_URL: `http://127.0.0.1:${port}` } })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toMatch(/could not reach the API: Connection error: .*ECONNREFUSED.*Is the server running\? \(--base-url\)/)
  }, 20_000)

  it.each([
    ["send text", ["send", "text", "--channel", "7", "--to", "1555", "--text", "hi"]],
    ["channels list", ["channels", "list"]],
    ["subscriptions list --json", ["subscriptions", "list", "--json"]]
  ])("a web page answering 200 instead of the API makes %s exit 1 and say the base URL may be wrong", async (_name, argv) => {
    const page = createHttpServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>dev server</title>"))
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve))
    const base = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
    try {
      const ran = await cli(argv, { env: { PLATFORM_BASE_URL: base } })
      expect(ran.code).toBe(1)
      expect(ran.stdout).toBe("")
      const message = argv.includes("--json") ? (JSON.parse(ran.stderr) as { error: { message: string } }).error.message : ran.stderr
      expect(message).toMatch(/answered 200 text\/html, not JSON: the base URL http:\/\/127\.0\.0\.1:\d+ may not be the platform API.*--base-url/)
    } finally {
      await new Promise((resolve) => page.close(resolve))
    }
  })

  it.each([
    [["--help"], /Usage: platform/],
    [["--version"], /^0\.1\.0/],
    [["help", "send"], /Usage: platform send/],
    [["help", "send", "text"], /--preview-url/],
    [["help", "login"], /Global Options:[\s\S]*--api-key <key>\s+API key \(env PLATFORM_API_KEY\)[\s\S]*--base-url <url>/],
    [["help", "environment"], /flag > environment variable >\s+profile in the config file > default[\s\S]*PLATFORM_API_KEY[\s\S]*NO_COLOR[\s\S]*0600/],
    [["help", "exit-codes"], /0 +success[\s\S]*2 +usage[\s\S]*4 +authentication[\s\S]*130 +interrupted/],
    [["--json", "--help"], /Usage: platform/],
    [["send", "text", "--help", "--json"], /Usage: platform send text/],
    [["--json", "--version"], /^0\.1\.0\n$/]
  ] as const)("platform %j prints help on stdout and exits 0", async (argv, text) => {
    const ran = await cli(argv)
    expect(ran.code).toBe(0)
    expect(ran.stdout).toMatch(text)
    expect(ran.stderr).toBe("")
  })

  it("a reader that closes the pipe early (`platform --help | head -1`) ends the CLI quietly with exit 0", async () => {
    const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
    const child = spawn(process.execPath, [bin, "--help"], { stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.destroy() // the reader is gone before the first write
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    expect(stderr).toBe("")
    expect(code).toBe(0)
  }, 20_000)
})
