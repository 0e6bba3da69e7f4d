import { type ChildProcess, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/*
 * The README-execution test (issues 10 and 41): the server starts once as the Quick start
 * says, with a plain `npm start` and none of the server's settings in its environment (a
 * reader's shell has none), except a free PORT, METRICS_PORT=off and a scratch DATA_DIR (an
 * empty ./.data, as on a fresh clone) so that it can run beside other servers; the demo account it prints (the `export NAME=value` lines of the framed block)
 * becomes the environment of every code block marked runnable in README.md and the
 * package READMEs: ```sh runnable (bash -euo pipefail) and ```ts runnable (tsx), run
 * in order from the repository root with the CLI on PATH as `platform`. A block fails
 * on a non-zero exit, an API error body (`"detail":`) or the word "error" in its
 * output; `expect=a,b` after `runnable` lists strings its stdout must contain.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url))
const cliBin = join(root, "packages/cli/dist/bin.js")
const launcher = join(root, "packages/cli/bin/platform.js")
const serverMain = join(root, "packages/server/dist/main.js")
const tsx = join(root, "node_modules/.bin/tsx")

interface Block {
  readonly file: string
  readonly line: number
  readonly lang: "sh" | "ts"
  readonly expect: ReadonlyArray<string>
  readonly code: string
}

const readmes = [
  "README.md",
  ...readdirSync(join(root, "packages"))
    .map((p) => `packages/${p}/README.md`)
    .filter((p) => existsSync(join(root, p)))
]

export const extractBlocks = (file: string, text: string): Block[] => {
  const blocks: Block[] = []
  const fence = /^```(sh|ts)[ \t]+runnable\b([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm
  for (const m of text.matchAll(fence)) {
    const expectAttr = /\bexpect=(\S+)/.exec(m[2] ?? "")
    blocks.push({
      file,
      line: text.slice(0, m.index).split("\n").length,
      lang: m[1] as "sh" | "ts",
      expect: expectAttr ? expectAttr[1]!.split(",").filter((s) => s !== "") : [],
      code: m[3]!
    })
  }
  return blocks
}

const blocks = readmes.flatMap((file) => extractBlocks(file, readFileSync(join(root, file), "utf8")))

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

const run = (command: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>, timeoutMs: number) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    // The whole process group: a block's background jobs must not outlive it.
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(() => {
      stderr += `\n[readme test] timed out after ${timeoutMs} ms`
      killGroup()
    }, timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      killGroup()
      resolve({ code, stdout, stderr })
    })
  })

/** The server's settings (packages/server/src/config.ts, README "Configuration"). */
const serverSettings = /^(PORT|HOST|PUBLIC_URL|DATABASE_URL|PGLITE_\w+|UPSTREAM|META_\w+|ENCRYPTION_KEY|SESSION_SECRET|REDIS_URL|ROLE|UNSAFE_ALLOW_LOCAL_TARGETS|SANDBOX_\w+|LOG_LEVEL|LOG_FORMAT|NODE_ENV|DATA_DIR|SHUTDOWN_GRACE_MS|METRICS_\w+|OTEL_\w+|DEMO_PASSWORD)$/

let server: ChildProcess | undefined
let serverOutput = ""
let scratch = ""
let env: Record<string, string | undefined> = {}
const dataDir = () => join(scratch, "data")

beforeAll(async () => {
  if (!existsSync(serverMain) || !existsSync(cliBin)) {
    throw new Error("build the server and the CLI first (npm test runs turbo's build; or npx turbo run build)")
  }
  scratch = mkdtempSync(join(tmpdir(), "readme-test-"))
  const port = await freePort()
  // What the test runner's environment may hold (vitest sets NODE_ENV=test; CI sets DATABASE_URL): a reader's shell has none of it.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !serverSettings.test(name)))
  server = spawn("npm", ["start"], {
    cwd: root,
    detached: true, // its own process group: npm, the launcher and the server stop together
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...clean, PORT: String(port), METRICS_PORT: "off", DATA_DIR: dataDir() }
  })
  server.stdout!.on("data", (c: Buffer) => (serverOutput += c.toString()))
  server.stderr!.on("data", (c: Buffer) => (serverOutput += c.toString()))
  const deadline = Date.now() + 90_000
  while (!/━━ shown once/.test(serverOutput)) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}):\n${serverOutput}`)
    if (Date.now() > deadline) throw new Error(`no demo block within 90 s:\n${serverOutput}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  // What a developer copies from the printed block.
  const exported = Object.fromEntries([...serverOutput.matchAll(/^\s*export (\w+)=(\S+)\s*$/gm)].map((m) => [m[1]!, m[2]!]))
  const bin = join(scratch, "bin")
  mkdirSync(bin)
  // What `npx platform` runs: the committed launcher, which runs the built CLI.
  writeFileSync(join(bin, "platform"), `#!/bin/sh\nexec "${process.execPath}" "${launcher}" "$@"\n`)
  chmodSync(join(bin, "platform"), 0o755)
  env = {
    ...process.env,
    ...exported,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    XDG_CONFIG_HOME: join(scratch, "config"),
    WEBHOOK_PORT: String(await freePort()),
    NO_COLOR: "1",
    FORCE_COLOR: undefined
  }
}, 120_000)

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((r) => server!.once("exit", r))
    process.kill(-server.pid!, "SIGTERM")
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))])
    try {
      process.kill(-server.pid!, "SIGKILL")
    } catch {
      // the group is gone
    }
  }
  if (scratch !== "") rmSync(scratch, { recursive: true, force: true })
}, 30_000)

describe("the first start prints the demo account once", () => {
  it("with a key, both channels and the variables the README uses", () => {
    expect(env.PLATFORM_API_KEY).toMatch(/^pk_live_[0-9A-Za-z]{40}$/)
    expect(env.PLATFORM_BASE_URL).toMatch(/^http:\/\/localhost:\d+$/)
    expect(env.CHANNEL_ID).toMatch(/^\d+$/)
    expect(env.SOCIAL_CHANNEL_ID).toMatch(/^\d+$/)
    expect(env.PLATFORM_DASHBOARD_EMAIL).toBe("demo@example.com")
    expect(env.PLATFORM_DASHBOARD_PASSWORD?.length).toBeGreaterThanOrEqual(8)
    expect(serverOutput.match(/━━ Platform demo account/g)).toHaveLength(1)
    expect(serverOutput).toContain("platform listen --forward-to")
    expect(serverOutput).toContain("/platform/v1/openapi.json")
    // A plain start takes local receivers, and says so.
    expect(serverOutput).toContain("webhook targets may be http:// and localhost")
  })

  it("npm start said what it was building, and the embedded database is in DATA_DIR/pglite", () => {
    expect(serverOutput).toMatch(/^npm start: building the server and the CLI with turbo/m)
    expect(serverOutput).toMatch(/^npm start: (nothing to build|built in \d+ s)/m)
    expect(existsSync(join(dataDir(), "pglite", "PG_VERSION"))).toBe(true)
  })
})

describe("README code blocks marked runnable", () => {
  it("there are runnable blocks in the root README and in package READMEs", () => {
    expect(blocks.filter((b) => b.file === "README.md").length).toBeGreaterThanOrEqual(3)
    expect(new Set(blocks.map((b) => b.file)).size).toBeGreaterThanOrEqual(3)
  })

  for (const block of blocks) {
    it(`${block.file}:${block.line} (${block.lang}${block.expect.length ? `, expects ${block.expect.join(", ")}` : ""})`, async () => {
      const dir = mkdtempSync(join(root, "packages/cli/.readme-run-"))
      try {
        const file = join(dir, block.lang === "sh" ? "block.sh" : "block.ts")
        writeFileSync(file, block.code)
        const result = block.lang === "sh"
          ? await run("bash", ["-euo", "pipefail", file], env, 45_000)
          : await run(tsx, [file], env, 45_000)
        const report = `${relative(root, file)} from ${block.file}:${block.line}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
        expect(result.code, report).toBe(0)
        expect(result.stdout, report).not.toMatch(/"detail"\s*:/)
        expect(`${result.stdout}\n${result.stderr}`, report).not.toMatch(/\b(error|exception|unhandled)\b/i)
        for (const wanted of block.expect) expect(result.stdout, report).toContain(wanted)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 60_000)
  }
})
