import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

/*
 * `platform` as npm links it (node_modules/.bin/platform → bin/platform.js): the launcher is
 * committed, so `npm ci` links it before any build; it runs dist/bin.js once there is one,
 * and says how to build when there is not.
 */

const pkg = fileURLToPath(new URL("../", import.meta.url))
const launcher = join(pkg, "bin/platform.js")
const scratch = mkdtempSync(join(tmpdir(), "cli-launcher-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe("the platform launcher", () => {
  it("is the package's bin, a file in the repository rather than in dist/", () => {
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { bin: Record<string, string>; files: Array<string> }
    expect(manifest.bin).toEqual({ platform: "./bin/platform.js" })
    expect(manifest.files).toContain("bin")
    expect(readFileSync(launcher, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true)
  })

  it("runs the built CLI: `platform --version` prints the version and exits 0", () => {
    const ran = spawnSync(process.execPath, [launcher, "--version"], { encoding: "utf8" })
    expect(ran.stderr).toBe("")
    expect(ran.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    expect(ran.status).toBe(0)
  })

  it("before the first build it exits 1 saying to run npm start or npm run build", () => {
    // The launcher alone, in a package without dist/ (a fresh clone after npm ci).
    mkdirSync(join(scratch, "bin"))
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ type: "module" }))
    copyFileSync(launcher, join(scratch, "bin/platform.js"))
    const ran = spawnSync(process.execPath, [join(scratch, "bin/platform.js"), "channels", "list"], { encoding: "utf8" })
    expect(ran.status).toBe(1)
    expect(ran.stdout).toBe("")
    expect(ran.stderr).toContain("the CLI is not built yet")
    expect(ran.stderr).toContain("Run `npm start`")
    expect(ran.stderr).toContain("`npm run build`")
  })
})
