import { execFile } from "node:child_process"
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

/*
 * The published packages as a user gets them: each is packed (`npm pack`), the tarballs are
 * installed into empty projects (their third-party dependencies come from the registry or the
 * npm cache), and there they are type-checked, imported, required and run.
 */

const run = promisify(execFile)
const repo = fileURLToPath(new URL("../../../", import.meta.url))
const consumer = fileURLToPath(new URL("./consumer/", import.meta.url))
const tsc = join(repo, "node_modules/typescript/bin/tsc")

const PUBLISHED = ["shared", "sdk", "cli", "webhook-verify"] as const
type Published = (typeof PUBLISHED)[number]

let work: string
const tarballs = new Map<Published, string>()
/** The project of an SDK, CLI and webhook-verify user; shared's own project beside it. */
let app: string
let sharedApp: string

const npm = (cwd: string, ...args: Array<string>) =>
  run("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd, maxBuffer: 16 * 1024 * 1024 })

const project = (name: string, files: Record<string, string> = {}) => {
  const dir = join(work, name)
  cpSync(consumer, dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true }))
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
  return dir
}

/** Kilobytes on disk under a directory. */
const sizeOf = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const path = join(dir, entry.name)
    return sum + (entry.isDirectory() ? sizeOf(path) : entry.isFile() ? statSync(path).size / 1024 : 0)
  }, 0)

const manifest = (name: Published) =>
  JSON.parse(readFileSync(join(repo, "packages", name, "package.json"), "utf8")) as Record<string, any>

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "platform-consumer-"))
  await Promise.all(PUBLISHED.map(async (name) => {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: join(repo, "packages", name) })
    tarballs.set(name, join(work, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename))
  }))
  app = project("app")
  sharedApp = project("shared-app")
  await Promise.all([
    npm(app, "install", tarballs.get("sdk")!, tarballs.get("cli")!, tarballs.get("webhook-verify")!),
    npm(sharedApp, "install", tarballs.get("shared")!)
  ])
}, 180_000)

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

describe("the packed packages, installed into an empty project", () => {
  it("bring only what runs: the SDK, the CLI and webhook-verify install neither shared nor Effect", () => {
    const installed = readdirSync(join(app, "node_modules"))
    expect(installed).not.toContain("effect")
    expect(readdirSync(join(app, "node_modules/@platform")).sort()).toEqual(["cli", "sdk", "webhook-verify"])
    console.log(`install size: sdk+cli+webhook-verify ${Math.round(sizeOf(join(app, "node_modules")))} KB, shared ${Math.round(sizeOf(join(sharedApp, "node_modules")))} KB`)
    expect(sizeOf(join(app, "node_modules"))).toBeLessThan(5 * 1024)
  })

  it("type-check a strict ESM and CommonJS consumer of the SDK and webhook-verify (nodenext)", async () => {
    const result = await run(process.execPath, [tsc, "-p", join(app, "tsconfig.json")], { cwd: app }).then(
      () => "",
      (e: { stdout: string }) => e.stdout
    )
    expect(result).toBe("")
  }, 60_000)

  it.each([["ESM", "use.mjs", "wamid.esm", "pk_esm"], ["CommonJS", "use.cjs", "wamid.cjs", "pk_cjs"]])(
    "a %s script sends through the SDK to a loopback server and verifies a webhook signature",
    async (_, script, messageId, key) => {
      const { stdout } = await run(process.execPath, [script], { cwd: app })
      expect(JSON.parse(stdout)).toEqual({
        sent: messageId,
        seen: [`POST /platform/v1/messages ${key}`],
        verified: true,
        tampered: false
      })
    }
  )

  it("the installed `platform --help` prints its usage", async () => {
    const { stdout } = await run(join(app, "node_modules/.bin/platform"), ["--help"], { cwd: app })
    expect(stdout).toMatch(/^Usage: platform/m)
    expect(stdout).toContain("subscriptions")
  })

  it("@platform/shared imports as ESM and requires as CommonJS", async () => {
    const probe = "console.log(m.EVENT_TYPES.length > 0 && typeof m.PlatformApi === 'function')"
    const esm = await run(process.execPath, ["--input-type=module", "-e", `import * as m from "@platform/shared"; ${probe}`], { cwd: sharedApp })
    const cjs = await run(process.execPath, ["-e", `const m = require("@platform/shared"); ${probe}`], { cwd: sharedApp })
    expect([esm.stdout.trim(), cjs.stdout.trim()]).toEqual(["true", "true"])
  })

  it("each published package.json has what a registry page needs, on one version", () => {
    const versions = new Set<string>()
    for (const name of PUBLISHED) {
      const pkg = manifest(name)
      expect(pkg, name).toMatchObject({
        name: `@platform/${name}`,
        license: "MIT",
        publishConfig: { access: "public" },
        repository: { type: "git", directory: `packages/${name}` }
      })
      expect(pkg.description?.length, name).toBeGreaterThan(20)
      expect(pkg.keywords?.length, name).toBeGreaterThan(2)
      expect(pkg.homepage, name).toMatch(/^https:\/\//)
      // What is built, and for the CLI the committed launcher its `bin` names (it runs dist/bin.js).
      expect(pkg.files, name).toEqual(name === "cli" ? ["dist", "bin"] : ["dist"])
      versions.add(pkg.version)
    }
    expect([...versions]).toHaveLength(1)
  })
})
