/**
 * `npm run bench:send`: what the platform itself costs a send. Text sends
 * (`POST /platform/v1/messages`) against the real server (its build, dist/main.js, ROLE=all,
 * UPSTREAM=meta pointed at the Graph simulator) on a scratch Postgres database, and
 * in the same sitting against a bare proxy (bare-send.ts: node:http, a cached key
 * lookup, the same upstream request, one INSERT). Three processes besides this one
 * and the load generator's: the simulator (graph-simulator.ts, the code demo mode
 * mounts, status callbacks off unless BENCH_CALLBACKS=1), the server, the bare proxy.
 * The sends go round-robin over BENCH_CHANNELS chat channels at the high tier's
 * 1,000/s each, so no per-number throttle is the bound; the key allows 100 million a minute.
 *
 * Each round measures, the targets alternating first: the peak (unlimited,
 * BENCH_CONNECTIONS connections) of the server, of the bare proxy, and of the server
 * with an Idempotency-Key on every request; then each of the two at 50% of its own
 * peak, where the own time (end-to-end minus the `Server-Timing: upstream` call) is
 * read per response, and the bare proxy at the platform's half-peak rate (what this
 * machine adds to any send at that load: the load generator, the simulator and
 * Postgres share its cores). Each step also reads the CPU time the target process used per
 * send, and that of the scratch database's Postgres backends (/proc; Postgres runs
 * on this machine): on a shared, loaded machine these say what a send costs better
 * than latencies do. Ratios are taken within a round; the summary gives min and
 * median over BENCH_ROUNDS rounds, and the peak RSS (VmHWM) of both processes.
 * Goals (issue 43): >= 0.6 x the bare proxy; own-time p99 <= 15 ms at 50% of peak;
 * Idempotency-Key costing <= 10% of throughput; server peak RSS <= 400 MB. Last, the floor
 * under any send (send-floor.ts): the server's CPU per request of /healthz, an
 * authenticated GET, and a send answered 404 before any upstream call or write.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created beside it and dropped), BENCH_SECONDS per step (10),
 * BENCH_ROUNDS (3), BENCH_CONNECTIONS (32), BENCH_CHANNELS (4), BENCH_PEERS (1000
 * recipients, so conversations are both created and updated), BENCH_CALLBACKS=1
 * (the simulator posts sent/delivered/read back), BENCH_ROLE (the server's ROLE, all by
 * default; api leaves the delivery workers out); diagnostics: BENCH_SERVER_CPU_PROFILE=<dir>
 * (the server's CPU profile, written when it stops), BENCH_SERVER_DIST=<dir under
 * packages/server> (another build of the server, for a before/after comparison).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { peakRssMb } from "./rss.js"
import { measureFloor } from "./send-floor.js"
import { cpuMs } from "./process-cpu.js"
import { freePort, median, query, stop, waitFor, withBenchServer } from "./support.js"

const here = dirname(fileURLToPath(import.meta.url))
const serverDir = join(here, "..")
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const channelCount = Number(process.env.BENCH_CHANNELS ?? 4)
const peers = Number(process.env.BENCH_PEERS ?? 1000)
const callbacks = process.env.BENCH_CALLBACKS === "1"
const APP = { META_APP_ID: "bench-app", META_APP_SECRET: "bench-app-secret" }
const HIGH_TIER_PER_SECOND = 1000
const BARE_TOKEN = "EAAGbenchbaretoken"

interface Result {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly upstreamP50: number
  readonly upstreamP99: number
  readonly ownP50: number
  readonly ownP99: number
  readonly non2xx: number
  readonly errors: number
  readonly total: number
  /** The target process's CPU time per 2xx send over the step, ms (user + system, /proc). */
  cpuMs?: number
  /** CPU time per 2xx send of the Postgres backends connected to the scratch database, ms. */
  dbCpuMs?: number
}

/** CPU seconds so far of each Postgres backend connected to the scratch database (Postgres runs on this machine). */
const databaseCpu = async (): Promise<Map<number, number>> => {
  if (targetPids.database === undefined) return new Map()
  // A figure, not a condition of the run: a refused connection (a shared server's max_connections) leaves it blank.
  const answer = await query(targetPids.database, `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`)
    .catch(() => undefined)
  return new Map((answer?.rows ?? []).map((r: { pid: number }) => [r.pid, cpuMs(r.pid) / 1000]))
}

const load = async (url: string, key: string, channels: ReadonlyArray<number>, rate: number, duration: number, idempotency: boolean) => {
  const before = await databaseCpu()
  const result = await loadOnly(url, key, channels, rate, duration, idempotency)
  let used = before.size === 0 ? NaN : 0
  for (const [pid, cpu] of await databaseCpu()) {
    const delta = cpu - (before.get(pid) ?? 0)
    if (Number.isFinite(delta)) used += delta
  }
  result.dbCpuMs = (used * 1000) / Math.max(1, result.total - result.non2xx)
  return result
}

const loadOnly = (url: string, key: string, channels: ReadonlyArray<number>, rate: number, duration: number, idempotency: boolean) =>
  new Promise<Result>((resolve, reject) => {
    const pid = url.includes("/platform/v1/") ? targetPids.platform : targetPids.bare
    const cpuBefore = pid === undefined ? NaN : cpuMs(pid) / 1000
    const args = [url, key, channels.join(","), String(Math.round(rate)), String(duration), String(connections), String(peers), idempotency ? "1" : "0"]
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "send-load.ts"), ...args], {
      cwd: serverDir,
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`load exited ${code}`))
      const result = JSON.parse(out) as Result
      const cpu = pid === undefined ? NaN : cpuMs(pid) / 1000 - cpuBefore
      result.cpuMs = (cpu * 1000) / Math.max(1, result.total - result.non2xx)
      resolve(result)
    })
  })

/** The processes whose CPU time the steps read. */
const targetPids: { platform?: number; bare?: number; database?: string } = {}

const json = async (base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(base + path, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return { body: JSON.parse(text) as Record<string, any>, headers: res.headers }
}

const child = (script: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  spawn(process.execPath, ["--import", "tsx", join(here, script), ...args], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"]
  })

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-")
const line = (name: string, offered: string, r: Result) =>
  console.log(
    `${name.padEnd(26)} ${offered.padStart(7)} ${f(r.rps).padStart(7)} ${f(r.p50, 1).padStart(7)} ${f(r.p99, 1).padStart(7)} ` +
      `${f(r.upstreamP50, 1).padStart(7)} ${f(r.upstreamP99, 1).padStart(7)} ${f(r.ownP50, 1).padStart(7)} ${f(r.ownP99, 1).padStart(7)} ` +
      `${f(r.cpuMs ?? NaN, 2).padStart(7)} ${f(r.dbCpuMs ?? NaN, 2).padStart(7)}` +
      (r.non2xx + r.errors > 0 ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : "")
  )

interface Round {
  readonly platform: Result
  readonly bare: Result
  readonly keyed: Result
  readonly platformHalf: Result
  readonly bareHalf: Result
  /** The bare proxy offered the platform's half-peak rate: what the machine itself adds to a send at that load. */
  readonly bareAtPlatformHalf: Result
}

const main = async () => {
  const platformPort = await freePort()
  const simulatorPort = await freePort()
  const simulatorBase = `http://127.0.0.1:${simulatorPort}`
  let simulator: ChildProcess | undefined
  let bare: ChildProcess | undefined
  try {
    simulator = child("graph-simulator.ts", [String(simulatorPort), callbacks ? "on" : "off"], {
      ...APP,
      PUBLIC_URL: `http://127.0.0.1:${platformPort}`,
      LOG_LEVEL: "error"
    })
    await waitFor(`${simulatorBase}/`, 60_000)
    await withBenchServer("send", databaseUrl, {
      PORT: String(platformPort),
      UPSTREAM: "meta",
      META_GRAPH_URL: simulatorBase,
      ...APP,
      // Errors only: at shutdown the simulator's pending status callbacks find the server gone.
      LOG_LEVEL: "error",
      ...(process.env.BENCH_ROLE !== undefined ? { ROLE: process.env.BENCH_ROLE } : {})
    }, async ({ base, databaseUrl: scratch, pid }) => {
      targetPids.platform = pid
      targetPids.database = scratch
      const email = `bench.${randomBytes(4).toString("hex")}@example.com`
      const signup = await json(base, "POST", "/platform/dashboard/signup", { email, password: "bench-Password-1!", name: "bench" })
      const cookie = (signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev=")) ?? "").split(";")[0]!
      await query(scratch, `update developer_accounts set plan = 'business' where id = $1`, [signup.body.account.id])
      const created = await json(base, "POST", "/platform/dashboard/api-keys", { name: "bench", rate_limit_per_minute: 100_000_000 }, { cookie })
      const key = created.body.key as string
      const channels: Array<number> = []
      const bareChannels: Record<number, [string, string]> = {}
      for (let i = 0; i < channelCount; i++) {
        const pnid = `1002003004${String(i).padStart(2, "0")}`
        const channel = await json(base, "POST", "/platform/dashboard/channels/connect/chat", {
          code: `sandbox-code-${i}`,
          phone_number_id: pnid,
          waba_id: `9008007${String(i).padStart(2, "0")}`
        }, { cookie })
        channels.push(channel.body.channel_id as number)
        bareChannels[channel.body.channel_id as number] = [pnid, BARE_TOKEN]
      }
      // The simulator reports the standard tier (80/s); upgraded numbers send 1,000/s (Meta's high tier).
      await query(scratch, `update platform_channels set throughput_per_second = $1 where id = any($2)`, [HIGH_TIER_PER_SECOND, channels])

      const barePort = await freePort()
      bare = child("bare-send.ts", [String(barePort), scratch, `${simulatorBase}/v23.0`, JSON.stringify(bareChannels)])
      if (bare.pid !== undefined) targetPids.bare = bare.pid
      await waitFor(`http://127.0.0.1:${barePort}/`, 60_000)
      const platformUrl = `${base}/platform/v1/messages`
      const bareUrl = `http://127.0.0.1:${barePort}/`

      console.log(
        `bench:send  ${connections} connections, ${seconds} s per step, ${rounds} rounds, ${channelCount} channels at ` +
          `${HIGH_TIER_PER_SECOND}/s, ${peers} recipients, simulator in its own process (status callbacks ${callbacks ? "on" : "off"})`
      )
      console.error("warming up...")
      await load(platformUrl, key, channels, 0, 3, false)
      await load(bareUrl, key, channels, 0, 3, false)
      await load(platformUrl, key, channels, 0, 3, true)

      console.log(`\n${"target".padEnd(26)} ${"offered".padStart(7)} ${"sends/s".padStart(7)} ${"p50".padStart(7)} ${"p99".padStart(7)} ` +
        `${"up p50".padStart(7)} ${"up p99".padStart(7)} ${"own p50".padStart(7)} ${"own p99".padStart(7)} ${"cpu/send".padStart(7)} ${"db cpu".padStart(7)}   (ms)`)
      const results: Array<Round> = []
      for (let round = 0; round < rounds; round++) {
        const run = {
          platform: () => load(platformUrl, key, channels, 0, seconds, false),
          bare: () => load(bareUrl, key, channels, 0, seconds, false),
          keyed: () => load(platformUrl, key, channels, 0, seconds, true)
        }
        const order = round % 2 === 0 ? (["platform", "bare", "keyed"] as const) : (["keyed", "bare", "platform"] as const)
        const peak: Partial<Record<keyof typeof run, Result>> = {}
        for (const name of order) peak[name] = await run[name]()
        const halves = round % 2 === 0 ? (["platform", "bare"] as const) : (["bare", "platform"] as const)
        const half: Partial<Record<"platform" | "bare", Result>> = {}
        for (const name of halves) {
          half[name] = await load(name === "platform" ? platformUrl : bareUrl, key, channels, peak[name]!.rps / 2, seconds, false)
        }
        const bareAtPlatformHalf = await load(bareUrl, key, channels, peak.platform!.rps / 2, seconds, false)
        const r: Round = {
          platform: peak.platform!,
          bare: peak.bare!,
          keyed: peak.keyed!,
          platformHalf: half.platform!,
          bareHalf: half.bare!,
          bareAtPlatformHalf
        }
        results.push(r)
        line(`#${round + 1} platform`, "max", r.platform)
        line(`#${round + 1} bare proxy`, "max", r.bare)
        line(`#${round + 1} platform + Idem-Key`, "max", r.keyed)
        line(`#${round + 1} platform`, f(r.platform.rps / 2), r.platformHalf)
        line(`#${round + 1} bare proxy`, f(r.bare.rps / 2), r.bareHalf)
        line(`#${round + 1} bare proxy`, f(r.platform.rps / 2), r.bareAtPlatformHalf)
      }

      const summary = (label: string, values: ReadonlyArray<number>, digits: number, unit = "") =>
        `${label}: min ${f(Math.min(...values), digits)}${unit}, median ${f(median(values), digits)}${unit} (${values.map((v) => f(v, digits)).join(", ")})`
      const ratio = results.map((r) => r.platform.rps / r.bare.rps)
      const keyedCost = results.map((r) => 1 - r.keyed.rps / r.platform.rps)
      const ownP99 = results.map((r) => r.platformHalf.ownP99)
      const bareOwnP99 = results.map((r) => r.bareHalf.ownP99)
      const bareSameRateOwnP99 = results.map((r) => r.bareAtPlatformHalf.ownP99)
      const cpu = results.map((r) => (r.platform.cpuMs ?? NaN) / (r.bare.cpuMs ?? NaN))
      const rss = peakRssMb(pid)
      const bareRss = bare.pid === undefined ? NaN : peakRssMb(bare.pid)
      console.log("")
      console.log(summary("platform / bare proxy peak sends/s", ratio, 2, " x"))
      console.log(summary("server CPU per send / bare proxy CPU per send (peak)", cpu, 2, " x"))
      console.log(summary("Idempotency-Key cost (1 - keyed / unkeyed peak)", keyedCost.map((c) => c * 100), 1, "%"))
      console.log(summary("platform own-time p99 at 50% of its peak", ownP99, 1, " ms"))
      console.log(summary("bare proxy own-time p99 at 50% of its peak", bareOwnP99, 1, " ms"))
      console.log(summary("bare proxy own-time p99 at the platform's 50% rate", bareSameRateOwnP99, 1, " ms"))
      console.log(`peak RSS (VmHWM): server ${f(rss)} MB, bare proxy ${f(bareRss)} MB`)
      console.log(
        `goals: >= 0.6 x bare ${median(ratio) >= 0.6 ? "met" : "NOT met"}; own p99 <= 15 ms at 50% ${median(ownP99) <= 15 ? "met" : "NOT met"}; ` +
          `Idempotency-Key <= 10% ${median(keyedCost) <= 0.1 ? "met" : "NOT met"}; RSS <= 400 MB ${rss <= 400 ? "met" : "NOT met"} (medians)`
      )
      console.log(`\nthe floor under any send: the server's CPU per request (32 connections, ${seconds} s each)`)
      const floor = await measureFloor(pid, base, key, channels[0]!, seconds)
      for (const s of floor) console.log(`${s.name.padEnd(34)} ${f(s.rps).padStart(6)} req/s  ${f(s.cpuMs, 3).padStart(6)} ms/request  (${s.statuses})`)
      const bareSend = median(results.map((r) => r.bare.cpuMs ?? NaN))
      const under = floor.at(-1)!.cpuMs
      console.log(
        `bare proxy, a whole send (peak steps, median)   ${f(bareSend, 3)} ms/send\n` +
          `a send's HTTP stack, key check, decoding and channel lookup alone cost ${f(under / bareSend, 2)} x the bare proxy's whole send: ` +
          `on the same CPU the platform's sends/s can be at most ${f(bareSend / under, 2)} x the bare proxy's, however cheap the rest`
      )
      const [stored] = (await query(scratch, `select count(*)::int as n from messages where direction = 'outbound'`)).rows
      const [bareStored] = (await query(scratch, `select count(*)::int as n from bare_sent`)).rows
      console.log(`recorded: ${stored.n} outbound messages by the server, ${bareStored.n} rows by the bare proxy (measured runs plus warm-up)`)
    })
  } finally {
    await stop(bare)
    await stop(simulator)
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
