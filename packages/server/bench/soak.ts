/**
 * `npm run bench:soak`: the real server (its build, dist/main.js, ROLE=all, its own process) on a
 * scratch database for SOAK_MINUTES (10), delivering at 50 % of its D and taking signed
 * Meta webhooks at 50 % of its inbound peak at once, with the server's resident memory
 * read every 30 s (VmRSS, VmHWM of /proc/<pid>/status) and printed as a curve; the
 * verdict is the growth after the first minute (least squares over the samples from
 * 1:00 on, MB/min). Issue 43: peak RSS <= 400 MB, no growth after the first minute.
 *
 * D and the inbound peak are measured first on this server (a burst of SOAK_BURST
 * (10,000) events written by the event writer, timed to the receiver holding them;
 * 5 s of inbound POSTs with no rate limit), unless SOAK_DELIVERY_RATE / SOAK_INBOUND_RATE
 * (ev/s, msg/s) give the rates. Events come from the event writer process
 * (event-writer.ts: message.sent, one subscription, as bench:delivery writes them);
 * the subscription takes message.sent only, so deliveries run at 50 % of D
 * (SOAK_DELIVER_INBOUND=1: message.received too, the inbound messages delivered on top).
 * Env: DATABASE_URL (a scratch database is created beside it and dropped), SOAK_MINUTES,
 * SOAK_SAMPLE_SECONDS (30).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { databaseUrl, startReceiver, startWriter } from "./delivery-processes.js"
import { mb, peakRssMb, rssMb } from "./rss.js"
import { query, withBenchServer } from "./support.js"

const here = dirname(fileURLToPath(import.meta.url))
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 30)
const BURST = Number(process.env.SOAK_BURST ?? 10_000)
const SECRET = "soak-app-secret"
const PHONE_NUMBER_ID = "100200300499"
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, "0")}`

const json = async (base: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text}`)
  return { body: JSON.parse(text) as Record<string, any>, headers: res.headers }
}

/** Inbound load (inbound-load.ts) at `rate` msg/s (0: unlimited) for `seconds`; resolves its summary. */
const inbound = (url: string, rate: number, seconds: number, started?: (child: ChildProcess) => void) =>
  new Promise<{ rps: number; p99: number; non2xx: number; errors: number }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "inbound-load.ts"), url, SECRET, PHONE_NUMBER_ID,
      String(rate), String(seconds), "32"], { stdio: ["ignore", "pipe", "inherit"] })
    started?.(child)
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`inbound load exited ${code}`))))
  })

/** Least-squares slope of (minutes, MB) points, MB/min. */
const slope = (points: ReadonlyArray<readonly [number, number]>) => {
  const n = points.length
  if (n < 2) return NaN
  const mx = points.reduce((a, [x]) => a + x, 0) / n
  const my = points.reduce((a, [, y]) => a + y, 0) / n
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0)
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0)
  return num / den
}

const main = () =>
  withBenchServer("soak", databaseUrl, { META_APP_SECRET: SECRET, UNSAFE_ALLOW_LOCAL_TARGETS: "true" }, async ({ base, databaseUrl: scratch, pid }) => {
    const receiver = await startReceiver()
    const count = async () => Number(await (await fetch(`${receiver.url}/count`)).text())
    const arrived = async (n: number) => Number(await (await fetch(`${receiver.url}/count?at_least=${n}`)).text())
    try {
      const email = `soak.${randomBytes(4).toString("hex")}@example.com`
      const signup = await json(base, "/platform/dashboard/signup", { email, password: "soak-Password-1!", name: "soak" })
      const cookie = (signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev=")) ?? "").split(";")[0]!
      const account = Number(signup.body.account.id)
      await query(scratch, `update developer_accounts set plan = 'business' where id = $1`, [account])
      const [channel] = (await query(scratch, `
        insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, display_phone_number)
        values ($1, 'chat', 'soak', '${PHONE_NUMBER_ID}', '900800799', '15550001199') returning id`, [account])).rows
      await json(base, "/platform/v1/webhooks/subscriptions", {
        target_url: `${receiver.url}/hook`,
        event_types: process.env.SOAK_DELIVER_INBOUND === "1" ? ["message.sent", "message.received"] : ["message.sent"]
      }, { cookie })
      const writer = await startWriter(new URL(scratch).pathname.slice(1), account, Number(channel.id))
      try {
        // D of this server: a burst written as fast as the writer goes, to the receiver holding it all.
        let sent = 0
        const started = Date.now()
        for (; sent < BURST; sent += 500) await writer.write({ n: 500, offset: sent, conversations: null, ids: false })
        await arrived(sent)
        const D = Number(process.env.SOAK_DELIVERY_RATE ?? 0) * 2 || sent / ((Date.now() - started) / 1000)
        const peak = Number(process.env.SOAK_INBOUND_RATE ?? 0) * 2 || (await inbound(`${base}/webhook/incoming`, 0, 5)).rps
        const deliveryRate = Math.round(D / 2)
        const inboundRate = Math.round(peak / 2)
        console.log(`bench:soak ${MINUTES} min: D ${Math.round(D)} ev/s -> writing ${deliveryRate} ev/s; inbound peak ` +
          `${Math.round(peak)} msg/s -> ${inboundRate} msg/s; server RSS after calibration ${mb(rssMb(pid))} (peak ${mb(peakRssMb(pid))})`)

        const seconds = MINUTES * 60
        let load: ChildProcess | undefined
        const inboundDone = inbound(`${base}/webhook/incoming`, inboundRate, seconds, (c) => (load = c))
        inboundDone.catch(() => undefined)
        const t0 = Date.now()
        const before = await count()
        let written = 0
        let nextSample = SAMPLE_SECONDS
        const samples: Array<readonly [number, number]> = []
        const pending = async () =>
          Number((await query(scratch, `select count(*)::int as n from webhook_deliveries where status = 'pending'`)).rows[0].n)
        console.log(`${"t".padStart(5)} ${"RSS".padStart(8)} ${"peak".padStart(8)} ${"written".padStart(9)} ${"received".padStart(9)} ${"pending".padStart(8)}`)
        const sample = async (at: number) => {
          const rss = rssMb(pid)
          samples.push([at / 60, rss])
          console.log(`${clock(at).padStart(5)} ${mb(rss).padStart(8)} ${mb(peakRssMb(pid)).padStart(8)} ` +
            `${String(written).padStart(9)} ${String((await count()) - before).padStart(9)} ${String(await pending()).padStart(8)}`)
        }
        await sample(0)
        // Batches every 100 ms: the writer's statements at the rate, as API processes write events.
        for (let tick = 1; (Date.now() - t0) / 1000 < seconds; tick++) {
          const due = Math.floor((deliveryRate * tick) / 10) - written
          if (due > 0) await writer.write({ n: due, offset: BURST + written, conversations: null, ids: false })
          written += Math.max(0, due)
          const elapsed = (Date.now() - t0) / 1000
          if (elapsed >= nextSample) {
            await sample(nextSample)
            nextSample += SAMPLE_SECONDS
          }
          const wait = t0 + tick * 100 - Date.now()
          if (wait > 0) await sleep(wait)
        }
        const served = await inboundDone.catch((e) => {
          load?.kill()
          throw e
        })
        await sleep(2000)
        await sample(seconds)
        const after = samples.filter(([m]) => m >= 1)
        const growth = slope(after)
        const first = after[0]?.[1] ?? NaN
        const last = samples[samples.length - 1]![1]
        console.log(`inbound served ${served.rps.toFixed(0)} msg/s (p99 ${served.p99} ms, non-2xx ${served.non2xx}, errors ${served.errors}); ` +
          `deliveries received ${(await count()) - before} of ${written} written`)
        console.log(`RSS after the first minute: ${mb(first)} at 1:00 -> ${mb(last)} at ${clock(seconds)}, ` +
          `slope ${growth.toFixed(2)} MB/min; peak ${mb(peakRssMb(pid))} (goal <= 400 MB)`)
        console.log(`verdict: ${Math.abs(growth) < 1 ? "no growth after the first minute (|slope| < 1 MB/min)" : "GROWING"}`)
      } finally {
        writer.stop()
      }
    } finally {
      receiver.stop()
    }
  })

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
