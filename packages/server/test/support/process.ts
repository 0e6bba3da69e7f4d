import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { parseDatabaseUrl } from "../../src/db/client.js"

/** The built server (`npm run build -w @platform/server`). */
export const serverMain = fileURLToPath(new URL("../../dist/main.js", import.meta.url))
/** The repository root, where `npm start` runs. */
export const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url))

/** A port nothing listens on at 127.0.0.1 right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().once("error", reject).listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** The environment of a server started by a test: loopback, JSON logs, sandbox, embedded unless told. */
export const serverEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  HOST: "127.0.0.1",
  DATABASE_URL: "",
  REDIS_URL: "",
  LOG_FORMAT: "json",
  NODE_ENV: "development",
  UPSTREAM: "sandbox",
  ...extra
})

export interface Running {
  readonly child: ChildProcess
  /** Everything printed so far, stdout and stderr. */
  readonly output: () => string
  readonly exit: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

const started: Array<ChildProcess> = []

/** Runs `command` with its output collected (killed with SIGKILL by `stopAll` if a test leaves it running). */
export const run = (command: string, args: ReadonlyArray<string>, options: { env: NodeJS.ProcessEnv; cwd?: string }): Running => {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] })
  started.push(child)
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, output: () => output, exit }
}

/** For afterEach: kills what a failed test left running. */
export const stopAll = () => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
}

/** Resolves with the first status of GET `url` that `accept` takes, polling every 50 ms; rejects when `running` exits first. */
export const untilAnswer = async (
  running: Running,
  url: string,
  accept: (status: number) => boolean = (status) => status === 200,
  timeoutMs = 60_000
) => {
  let exited = false
  void running.exit.then(() => (exited = true))
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (exited) throw new Error(`exited before ${url} answered: ${running.output()}`)
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms: ${running.output()}`)
    const status = await fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
      async (res) => {
        await res.body?.cancel()
        return res.status
      },
      () => undefined
    )
    if (status !== undefined && accept(status)) return status
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The pids under `pid` (children, theirs, ...), as `ps` lists them now. */
export const descendants = (pid: number): Array<number> => {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid="]).toString().trim().split("\n")
  const children = new Map<number, Array<number>>()
  for (const row of rows) {
    const [child, parent] = row.trim().split(/\s+/).map(Number)
    children.set(parent!, [...(children.get(parent!) ?? []), child!])
  }
  const found: Array<number> = []
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c)
      walk(c)
    }
  }
  walk(pid)
  return found
}

/** Whether a process with this pid exists. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const dirs: Array<string> = []

/** A temporary directory, removed by `removeScratch`. */
export const scratchDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-process-"))
  dirs.push(dir)
  return dir
}

const databases: Array<string> = []

const adminQuery = async (url: string, text: string) => {
  const c = parseDatabaseUrl(url)
  const client = new pg.Client({ host: c.host, port: c.port, database: c.database, user: c.username, password: c.password })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * A database of its own for a server process that a test restarts: a new database on the
 * server `DATABASE_URL` names (dropped by `removeScratch`), or an embedded one in a
 * temporary directory. Returns the variables to start it with.
 */
export const scratchDatabase = async (): Promise<Record<string, string>> => {
  const url = process.env.DATABASE_URL
  if (url === undefined || url === "") return { PGLITE_DIR: join(scratchDir(), "pglite") }
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  await adminQuery(url, `create database ${name}`)
  databases.push(name)
  const scratch = new URL(url)
  scratch.pathname = `/${name}`
  return { DATABASE_URL: scratch.toString() }
}

/** For afterEach (after `stopAll`): removes the temporary directories and databases. */
export const removeScratch = async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  const url = process.env.DATABASE_URL
  for (const name of databases.splice(0)) {
    await adminQuery(url!, `drop database if exists ${name} with (force)`).catch(() => undefined)
  }
}
