import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { parseDatabaseUrl } from "../../src/db/client.js"

/*
 * Server processes as production runs them: the built bundle (`npm run build`, which turbo runs
 * before `test`), one `node` per process, configured by its environment alone.
 */

export const MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url))

export interface ServerProcess {
  readonly name: string
  readonly child: ChildProcess
  readonly port: number
  readonly base: string
  /** Everything it printed so far (stdout and stderr). */
  readonly output: () => string
  /** Resolves with the exit code (null after a signal) once it has exited. */
  readonly exited: Promise<number | null>
}

/** A loopback port nothing listens on (bound, then closed), for a server that must know its own URL. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** `env` over a clean base: none of the test run's own DATABASE_URL, REDIS_URL, PGLITE_*, ROLE or PORT leaks in. */
const serverEnv = (env: Record<string, string>) => {
  const base: Record<string, string | undefined> = { ...process.env }
  for (const name of ["DATABASE_URL", "REDIS_URL", "PGLITE_DIR", "PGLITE_MEMORY", "ROLE", "PORT", "PUBLIC_URL", "LOG_LEVEL"]) {
    delete base[name]
  }
  return { ...base, HOST: "127.0.0.1", LOG_FORMAT: "json", NODE_ENV: "development", UPSTREAM: "sandbox", ...env }
}

const spawnServer = (env: Record<string, string>, main = MAIN) =>
  spawn(process.execPath, ["--max-semi-space-size=32", main], { env: serverEnv(env), stdio: ["ignore", "pipe", "pipe"] })

/** Starts `node dist/main.js` (or another build's `main`) with `env` and resolves once it listens. */
export const startServer = (name: string, env: Record<string, string>, main = MAIN) =>
  new Promise<ServerProcess>((resolve, reject) => {
    if (!existsSync(main)) return reject(new Error(`${main} is missing: build the server first (npm run build -w @platform/server)`))
    const child = spawnServer(env, main)
    let output = ""
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output)
      if (match) {
        const port = Number(match[1])
        resolve({ name, child, port, base: `http://127.0.0.1:${port}`, output: () => output, exited })
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    void exited.then((code) => reject(new Error(`${name} exited early with ${code}: ${output}`)))
  })

/** Runs `node dist/main.js` with `env` to its exit: the code and what it wrote to stderr. */
export const runToExit = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawnServer(env)
    let stderr = ""
    child.stdout!.resume()
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()))
    child.once("close", (code) => resolve({ code, stderr }))
  })

/** Ends a process: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export const stopServer = async (server: ServerProcess, graceMs = 10_000) => {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return
  server.child.kill("SIGTERM")
  const timer = setTimeout(() => server.child.kill("SIGKILL"), graceMs)
  await server.exited
  clearTimeout(timer)
}

/**
 * The local ports of `pid`'s TCP connections to loopback port `port` (Linux: its socket inodes
 * found in /proc/net/tcp), which tells a receiver which process a connection comes from;
 * undefined where /proc does not say.
 */
export const tcpPortsTo = (pid: number, port: number): Set<number> | undefined => {
  try {
    const inodes = new Set(readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        return socket ? [socket[1]!] : []
      } catch {
        return []
      }
    }))
    const ports = new Set<number>()
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      for (const row of readFileSync(table, "utf8").split("\n").slice(1)) {
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        const columns = row.trim().split(/\s+/)
        if (columns.length < 10 || !inodes.has(columns[9]!)) continue
        if (parseInt(columns[2]!.split(":")[1]!, 16) === port) ports.add(parseInt(columns[1]!.split(":")[1]!, 16))
      }
    }
    return ports
  } catch {
    return undefined
  }
}

const adminQuery = async (url: string, text: string) => {
  const connection = parseDatabaseUrl(url)
  const client = new pg.Client({ ...connection, user: connection.username })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * A database of its own on the server `adminUrl` names (as test/support/database.ts makes them),
 * its URL for the processes and `drop` to remove it (with force: after a SIGKILL, connections may linger).
 */
export const scratchDatabase = async (adminUrl: string) => {
  const name = `t_multi_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  await adminQuery(adminUrl, `create database ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`).catch(() => undefined)
  }
}
