/**
 * `npm run bench:inbound`: signed Meta POSTs (one text message each) against
 * `/webhook/incoming` of the real server on real Postgres, and in the same run
 * against a bare node:http handler that verifies the HMAC and does one INSERT
 * (the limit, DESIGN §8). Load comes from a separate process over loopback at
 * increasing fixed rates, then unlimited; the two targets alternate per step so
 * drift hits both alike. Goals: >= 1,500 msg/s sustained with p99 <= 50 ms,
 * >= 1.2 x the bare handler, and the server's peak RSS <= 400 MB.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created beside it and dropped), BENCH_SECONDS per step (6),
 * BENCH_CONNECTIONS (32), BENCH_RATES (500,1000,1500,2000,3000,0; 0 = unlimited);
 * diagnostics: BENCH_SERVER_CPU_PROFILE=<dir> (the server's CPU profile, written when it stops).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { backendCpu, backendCpuBetween, cpuMs } from "./process-cpu.js"
import { peakRssMb } from "./rss.js"
import { freePort, query, stop, waitFor, withBenchServer } from "./support.js"

const here = dirname(fileURLToPath(import.meta.url))
const serverDir = join(here, "..")
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const seconds = Number(process.env.BENCH_SECONDS ?? 6)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const rates = (process.env.BENCH_RATES ?? "500,1000,1500,2000,3000,0").split(",").map(Number)
const SECRET = "bench-app-secret"
const PHONE_NUMBER_ID = "100200300400"
const P99_GOAL_MS = 50
const RATIO_GOAL = 1.2
const RSS_GOAL_MB = 400


interface Result {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  readonly total: number
}

/** CPU per message answered during a step: the target's Node process, and its Postgres backends. */
interface Cpu {
  readonly nodeUs: number
  readonly pgUs: number
}

const load = (url: string, rate: number, duration: number) =>
  new Promise<Result>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(here, "inbound-load.ts"), url, SECRET, PHONE_NUMBER_ID, String(rate), String(duration), String(connections)],
      { cwd: serverDir, stdio: ["ignore", "pipe", "inherit"] }
    )
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(`load exited ${code}`))))
  })

const main = () =>
  withBenchServer("inbound", databaseUrl, { META_APP_SECRET: SECRET }, async ({ base, databaseUrl: scratch, pid }) => {
    let bare: ChildProcess | undefined
    try {
      const barePort = await freePort()
      await query(scratch, `
        with a as (insert into developer_accounts (name, plan) values ('bench', 'business') returning id)
        insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, display_phone_number)
        select id, 'chat', 'bench', '${PHONE_NUMBER_ID}', '900800700', '15550001111' from a`)
      bare = spawn(process.execPath, ["--import", "tsx", join(here, "bare-inbound.ts"), String(barePort), scratch, SECRET], {
        cwd: serverDir,
        stdio: ["ignore", "inherit", "inherit"]
      })
      await waitFor(`http://127.0.0.1:${barePort}/`, 30_000)

      const targets = {
        "/webhook/incoming": `${base}/webhook/incoming`,
        "bare HMAC + 1 INSERT": `http://127.0.0.1:${barePort}/`
      } as const
      type Name = keyof typeof targets
      console.error(`warming up (${connections} connections)...`)
      for (const url of Object.values(targets)) await load(url, 0, 3)

      const results: Record<Name, Array<{ rate: number } & Result & Cpu>> = { "/webhook/incoming": [], "bare HMAC + 1 INSERT": [] }
      // The processes of each target: its Node process and its backends' application_name.
      const procs: Record<Name, { pid: number | undefined; app: string }> = {
        "/webhook/incoming": { pid, app: "@effect/sql-pg" },
        "bare HMAC + 1 INSERT": { pid: bare.pid, app: "" }
      }
      const names = Object.keys(targets) as Array<Name>
      for (const [step, rate] of rates.entries()) {
        for (const name of step % 2 === 0 ? names : [...names].reverse()) {
          const nodeBefore = procs[name].pid === undefined ? 0 : cpuMs(procs[name].pid!)
          const pgBefore = await backendCpu(scratch)
          const r = await load(targets[name], rate, seconds)
          const nodeMs = procs[name].pid === undefined ? 0 : cpuMs(procs[name].pid!) - nodeBefore
          const pgMs = backendCpuBetween(pgBefore, await backendCpu(scratch), procs[name].app)
          const n = Math.max(1, r.total)
          results[name].push({ rate, ...r, nodeUs: (nodeMs * 1000) / n, pgUs: (pgMs * 1000) / n })
          console.error(
            `${name.padEnd(22)} offered ${rate === 0 ? "max" : rate}: ${r.rps.toFixed(0)} msg/s, p50 ${r.p50} ms, p99 ${r.p99} ms` +
              `, CPU/msg node ${results[name].at(-1)!.nodeUs.toFixed(0)} us, postgres ${results[name].at(-1)!.pgUs.toFixed(0)} us` +
              (r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : "")
          )
        }
      }

      // Sustained: the highest rate served in full (>= 95% of the offered rate, no error) within the p99 goal.
      const sustained = (name: Name) => {
        const ok = results[name].filter((r) =>
          r.non2xx + r.errors === 0 && r.p99 <= P99_GOAL_MS && (r.rate === 0 || r.rps >= 0.95 * r.rate)
        )
        return ok.reduce<({ rate: number } & Result & Cpu) | undefined>((best, r) => (best === undefined || r.rps > best.rps ? r : best), undefined)
      }
      const peak = (name: Name) => results[name].find((r) => r.rate === 0)
      console.log(`\ninbound benchmark: ${connections} connections, ${seconds} s per step, offered rates ${rates.map((r) => r || "max").join(", ")} msg/s`)
      console.log(`${"target".padEnd(24)} ${"offered".padStart(8)} ${"msg/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"node us".padStart(8)} ${"pg us".padStart(8)}  (CPU per message)`)
      for (const name of names) {
        for (const r of results[name]) {
          console.log(`${name.padEnd(24)} ${(r.rate === 0 ? "max" : String(r.rate)).padStart(8)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${r.nodeUs.toFixed(0).padStart(8)} ${r.pgUs.toFixed(0).padStart(8)}`)
        }
      }
      const s = sustained("/webhook/incoming")
      const b = sustained("bare HMAC + 1 INSERT")
      const ps = peak("/webhook/incoming")
      const pb = peak("bare HMAC + 1 INSERT")
      console.log(`\nsustained (p99 <= ${P99_GOAL_MS} ms, offered rate served): /webhook/incoming ${s ? `${s.rps.toFixed(0)} msg/s (p50 ${s.p50} ms, p99 ${s.p99} ms)` : "none"}; bare ${b ? `${b.rps.toFixed(0)} msg/s (p50 ${b.p50} ms, p99 ${b.p99} ms)` : "none"}`)
      if (ps && pb) console.log(`peak: /webhook/incoming ${ps.rps.toFixed(0)} msg/s vs bare ${pb.rps.toFixed(0)} msg/s = ${(ps.rps / pb.rps).toFixed(2)} x`)
      // The ratio: of the sustained rates when both have one (the goal's measure), else of the peaks.
      const ratio = s && b ? s.rps / b.rps : ps && pb ? ps.rps / pb.rps : undefined
      const rss = peakRssMb(pid)
      console.log(
        `goals: >= 1500 msg/s sustained: ${s && s.rps >= 1500 ? "met" : "NOT met"}; p99 <= ${P99_GOAL_MS} ms at it: ${s && s.p99 <= P99_GOAL_MS ? "met" : "NOT met"}; ` +
          `server peak RSS ${Number.isFinite(rss) ? `${rss.toFixed(0)} MB` : "unknown"} <= ${RSS_GOAL_MB} MB: ${rss <= RSS_GOAL_MB ? "met" : "NOT met"}`
      )
      console.log(
        `RATIO /webhook/incoming / bare: ${ratio === undefined ? "none" : `${ratio.toFixed(2)} x`} (${s && b ? "sustained" : "peak, no sustained rate for both"}; ` +
          `sustained ${s && b ? `${(s.rps / b.rps).toFixed(2)} x` : "n/a"}, peak ${ps && pb ? `${(ps.rps / pb.rps).toFixed(2)} x` : "n/a"}) ` +
          `>= ${RATIO_GOAL} x: ${ratio !== undefined && ratio >= RATIO_GOAL ? "met" : "NOT met"}`
      )
      const stored = await query(scratch, `select count(*)::int as n from messages`)
      const sent = results["/webhook/incoming"].reduce((n, r) => n + r.total, 0)
      console.log(`messages stored by /webhook/incoming: ${stored.rows[0].n} (of ${sent} measured POSTs plus warm-up)`)
    } finally {
      await stop(bare)
    }
  })

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
