import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))
const children: Array<ReturnType<typeof spawn>> = []
const dirs: Array<string> = []

const env = (extra: Record<string, string>) => ({
  ...process.env,
  HOST: "127.0.0.1",
  DATABASE_URL: "",
  REDIS_URL: "",
  LOG_FORMAT: "json",
  NODE_ENV: "development",
  UPSTREAM: "sandbox",
  ...extra
})

/** Starts the built server and resolves with its port once it listens. */
const listening = (extra: Record<string, string>) =>
  new Promise<{ port: number; child: ReturnType<typeof spawn> }>((resolve, reject) => {
    const child = spawn(process.execPath, [main], { env: env({ PORT: "0", ...extra }), stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output)
      if (match) resolve({ port: Number(match[1]), child })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.on("exit", (code) => reject(new Error(`server exited early with ${code}: ${output}`)))
  })

/** Runs the built server to its exit and returns the exit code and everything it printed. */
const exited = (extra: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [main], { env: env(extra), stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The status `/readyz` settles on: polled while it answers 503 (the first-run demo is being set up), up to 30 s. */
const readiness = async (port: number) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`)
    await res.body?.cancel()
    if (res.status !== 503 || Date.now() > deadline) return res.status
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-startup-"))
  dirs.push(dir)
  return dir
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe("a server that cannot start says why in one line and exits 1", () => {
  it("a second server on the same embedded database directory is refused, naming the directory and the running server's pid; the first goes on serving", async () => {
    expect(existsSync(main), "build the server first (npm run build -w @platform/server)").toBe(true)
    const dir = scratch()
    const dirs = { DATA_DIR: join(dir, "data"), PGLITE_DIR: join(dir, "data", "pglite") }
    const first = await listening(dirs)
    const second = await exited({ ...dirs, PORT: "0" })
    expect(second.code).toBe(1)
    expect(second.stderr).toBe(
      `Cannot start: the embedded database in ${dirs.PGLITE_DIR} is in use by another server (pid ${first.child.pid}). ` +
        "Stop that one first, or give this one its own PGLITE_DIR (or a DATABASE_URL).\n"
    )
    expect(await readiness(first.port)).toBe(200)
  }, 90_000)

  it("a directory whose lock was left by a process that is gone (kill -9) is taken over", async () => {
    const dir = scratch()
    const dirs = { DATA_DIR: join(dir, "data"), PGLITE_DIR: join(dir, "data", "pglite") }
    const first = await listening(dirs)
    const gone = new Promise((resolve) => first.child.once("exit", resolve))
    first.child.kill("SIGKILL")
    await gone
    const second = await listening(dirs)
    expect(await readiness(second.port)).toBe(200)
  }, 90_000)

  it("a port already in use names the port and PORT, with no stack trace", async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const ran = await exited({ PORT: String(port), PGLITE_MEMORY: "1", DATA_DIR: join(scratch(), "data") })
      expect(ran.code).toBe(1)
      expect(ran.stderr).toBe(
        `Cannot start: Port ${port} is already in use (another server, or an earlier \`npm start\` still running): stop it, or start this one with PORT=<another port>.\n`
      )
      expect(ran.stdout).not.toMatch(/\bat .*\.js:\d+/)
    } finally {
      taken.close()
    }
  }, 90_000)
})
