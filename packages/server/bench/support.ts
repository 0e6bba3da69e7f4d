import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { mb, peakRssMb } from "./rss.js"

/** The Node flags the start scripts launch the server with (see the server README). */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=32"]

/** Runs one statement on its own connection (scratch databases, fixtures). */
export const query = async (url: string, text: string, values: Array<unknown> = []) => {
  const client = new pg.Client({ connectionString: url })
  // A lost connection rejects the statement; without a listener its 'error' event would end the process too.
  client.on("error", () => {})
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}

/** The median; of an even count, the mean of the two middle values. */
export const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The `p`th percentile of values sorted ascending (NaN when there are none). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** A free loopback port. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      srv.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

/** Resolves once `url` answers at all, or fails after `timeoutMs`. */
export const waitFor = async (url: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((r) => setTimeout(r, 200))
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`)
}

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Stops a child process and waits for it to exit. */
export const stop = async (child: ChildProcess | undefined) => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM")
    await new Promise((r) => child.once("exit", r))
  }
}

export interface BenchServer {
  /** http://127.0.0.1:<port> */
  readonly base: string
  /** The scratch database the server runs on. */
  readonly databaseUrl: string
  /** The server's process id (its memory: rss.ts). */
  readonly pid: number
}

/**
 * Runs `use` against the real server in its own process on a scratch database
 * created beside `adminUrl`; the server, its data dir and the database are gone
 * afterwards. The server is the build (dist/main.js with the start script's Node
 * flags, as `npm start` runs it; the bench's npm script builds it first), so its
 * memory and CPU are production's, not those of a TypeScript loader; `entry:
 * "source"` runs src/main.ts through tsx instead. `env.PORT`, when given, is the
 * port it listens on (a free one otherwise).
 */
export const withBenchServer = async <A>(
  name: string,
  adminUrl: string,
  env: Record<string, string>,
  use: (server: BenchServer) => Promise<A>,
  options: { readonly entry?: "source" | "dist" } = {}
): Promise<A> => {
  const dbName = `bench_${name}_${randomBytes(4).toString("hex")}`
  const scratch = new URL(adminUrl)
  scratch.pathname = `/${dbName}`
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`))
  await query(adminUrl, `create database ${dbName}`)
  let server: ChildProcess | undefined
  try {
    const port = env.PORT !== undefined ? Number(env.PORT) : await freePort()
    const base = `http://127.0.0.1:${port}`
    // Diagnostics: BENCH_SERVER_CPU_PROFILE=<dir> writes the server's CPU profile there when it stops.
    const profile = process.env.BENCH_SERVER_CPU_PROFILE
    const flags = profile ? [...SERVER_NODE_FLAGS, "--cpu-prof", `--cpu-prof-dir=${profile}`] : SERVER_NODE_FLAGS
    // BENCH_SERVER_DIST=<dir under packages/server>: another build of the server (a before/after comparison).
    const dist = process.env.BENCH_SERVER_DIST ?? "dist"
    const entry = options.entry !== "source" ? [join(serverDir, dist, "main.js")] : ["--import", "tsx", join(serverDir, "src/main.ts")]
    server = spawn(process.execPath, [...flags, ...entry], {
      cwd: serverDir,
      env: {
        ...process.env,
        DATABASE_URL: scratch.toString(),
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_URL: base,
        ROLE: "all",
        LOG_LEVEL: "warning",
        LOG_FORMAT: "json",
        DATA_DIR: dataDir,
        NODE_ENV: "development",
        ...env
      },
      stdio: ["ignore", "inherit", "inherit"]
    })
    const exited = new Promise<never>((_, reject) =>
      server!.once("exit", (code) => reject(new Error(`the server exited with code ${code} before answering`)))
    )
    exited.catch(() => undefined)
    await Promise.race([waitFor(`${base}/healthz`, 180_000), exited])
    return await use({ base, databaseUrl: scratch.toString(), pid: server.pid! })
  } finally {
    // Every bench on the real server reports its peak memory (issue 43: none above 400 MB).
    if (server?.pid !== undefined && server.exitCode === null) {
      const peak = peakRssMb(server.pid)
      console.log(`server peak RSS (VmHWM): ${mb(peak)}   goal <= 400 MB   ${peak <= 400 ? "ok" : "MISSED"}`)
    }
    await stop(server)
    await query(adminUrl, `drop database if exists ${dbName} with (force)`).catch((e) => console.error("drop failed", e))
    rmSync(dataDir, { recursive: true, force: true })
  }
}
