/**
 * `npm run bench:auth`: an authenticated `GET /platform/v1/channels` (key lookup,
 * rate limiter, last_used_at bookkeeping, one query) against the bare `/healthz` of
 * the same server, on real Postgres. The server runs in its own process, autocannon
 * in another; the two routes alternate so drift hits both alike (DESIGN §8: compare
 * only within one run). Goal: authenticated p50 <= 1.3 x /healthz p50.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created beside it and dropped), BENCH_SECONDS (10), BENCH_CONNECTIONS (32),
 * BENCH_ROUNDS (2), REDIS_URL (optional: measures the Redis limiter).
 */
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { median, withBenchServer } from "./support.js"

const require = createRequire(import.meta.url)

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)

interface Result {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
}

const autocannon = (url: string, headers: Record<string, string>, duration: number) =>
  new Promise<Result>((resolve, reject) => {
    const args = [require.resolve("autocannon/autocannon.js"), "-j", "-c", String(connections), "-d", String(duration)]
    for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}=${v}`)
    args.push(url)
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`))
      const r = JSON.parse(out)
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx })
    })
  })

const main = () =>
  withBenchServer("auth", databaseUrl, { ROLE: "api" }, async ({ base }) => {
    const signup = await fetch(`${base}/platform/dashboard/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bench@example.com", password: "bench password", name: "Bench" })
    })
    const cookie = signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
    await fetch(`${base}/platform/dashboard/channels/connect/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ code: "bench", phone_number_id: "100200300400", waba_id: "900800700" })
    })
    const created = await fetch(`${base}/platform/dashboard/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "bench", rate_limit_per_minute: 1_000_000_000 })
    })
    const { key } = (await created.json()) as { key: string }
    const check = await fetch(`${base}/platform/v1/channels`, { headers: { "x-api-key": key } })
    if (check.status !== 200) throw new Error(`authenticated route answered ${check.status}`)

    const targets = {
      healthz: { url: `${base}/healthz`, headers: {} },
      channels: { url: `${base}/platform/v1/channels`, headers: { "x-api-key": key } }
    } as const
    console.error(`warming up (${connections} connections)...`)
    await autocannon(targets.healthz.url, targets.healthz.headers, 3)
    await autocannon(targets.channels.url, targets.channels.headers, 3)

    const results: Record<keyof typeof targets, Array<Result>> = { healthz: [], channels: [] }
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? (["healthz", "channels"] as const) : (["channels", "healthz"] as const)) {
        const r = await autocannon(targets[name].url, targets[name].headers, seconds)
        if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} non-2xx responses`)
        results[name].push(r)
        console.error(`round ${round + 1} ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`)
      }
    }
    const summary = (name: keyof typeof targets) => ({
      rps: median(results[name].map((r) => r.rps)),
      p50: median(results[name].map((r) => r.p50)),
      p99: median(results[name].map((r) => r.p99))
    })
    const h = summary("healthz")
    const c = summary("channels")
    const row = (label: string, s: { rps: number; p50: number; p99: number }) =>
      `${label.padEnd(34)} ${s.rps.toFixed(0).padStart(8)} ${String(s.p50).padStart(8)} ${String(s.p99).padStart(8)}`
    console.log(`\nauth benchmark: ${connections} connections, ${rounds} x ${seconds} s per route, limiter ${process.env.REDIS_URL ? "Redis" : "in-process"}`)
    console.log(`${"route".padEnd(34)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}`)
    console.log(row("GET /healthz", h))
    console.log(row("GET /platform/v1/channels (key)", c))
    const ratio = c.p50 / Math.max(h.p50, 0.001)
    console.log(
      `ratio channels/healthz: p50 ${ratio.toFixed(2)}x, p99 ${(c.p99 / Math.max(h.p99, 0.001)).toFixed(2)}x, ` +
        `req/s ${(c.rps / h.rps).toFixed(2)}x  (goal: p50 <= 1.30x: ${ratio <= 1.3 ? "met" : "NOT met"})`
    )
  })

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
