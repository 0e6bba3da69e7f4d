/**
 * `npm run bench:send`: sustained `POST /platform/v1/messages` (type text) through
 * the sandbox upstream on real Postgres. The server runs in its own process
 * (src/main.ts, ROLE=all, sandbox mounted, status callbacks on); this process
 * drives it with autocannon over loopback and reads the server's
 * `Server-Timing: upstream;dur=` header, so the upstream call time is reported
 * apart from the end-to-end latency.
 *
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created beside it and dropped), BENCH_SECONDS (15),
 * BENCH_CONNECTIONS (32), BENCH_PEERS (1000 recipients, so conversations are
 * both created and updated), BENCH_IDEMPOTENCY=1 to send an Idempotency-Key on
 * every request.
 */
import { randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { percentile, query, withBenchServer } from "./support.js"

interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number }
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  readonly non2xx: number
  readonly errors: number
  readonly duration: number
}
interface AutocannonClient {
  on(event: "headers", listener: (opts: { readonly headers?: ReadonlyArray<string> }) => void): void
}
type Autocannon = (options: Record<string, unknown>, done: (error: unknown, result: AutocannonResult) => void) => unknown
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const seconds = Number(process.env.BENCH_SECONDS ?? 15)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const peers = Number(process.env.BENCH_PEERS ?? 1000)
const idempotency = process.env.BENCH_IDEMPOTENCY === "1"


const json = async (base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return { body: JSON.parse(text) as Record<string, any>, headers: res.headers }
}

const run = (base: string, key: string, channelId: number, duration: number, upstreamMs: Array<number>) =>
  new Promise<AutocannonResult>((resolve, reject) => {
    let seq = 0
    autocannon({
      url: `${base}/platform/v1/messages`,
      connections,
      duration,
      requests: [{
        method: "POST",
        setupRequest: (request: Record<string, unknown>) => {
          seq++
          const to = `1555${String(seq % peers).padStart(7, "0")}`
          return {
            ...request,
            headers: {
              "content-type": "application/json",
              "x-api-key": key,
              ...(idempotency ? { "idempotency-key": `bench-${seq}-${randomBytes(4).toString("hex")}` } : {})
            },
            body: JSON.stringify({ channel_id: channelId, to, type: "text", text: `Order #${seq} has shipped` })
          }
        }
      }],
      setupClient: (client: AutocannonClient) => {
        client.on("headers", (opts) => {
          const headers = opts.headers ?? []
          for (let i = 0; i < headers.length; i += 2) {
            if (String(headers[i]).toLowerCase() === "server-timing") {
              const match = /upstream;dur=([\d.]+)/.exec(String(headers[i + 1]))
              if (match) upstreamMs.push(Number(match[1]))
            }
          }
        })
      }
    }, (error, result) => (error ? reject(error) : resolve(result)))
  })

const main = () =>
  withBenchServer("send", databaseUrl, {
    UPSTREAM: "sandbox",
    // Errors only: at shutdown the sandbox's pending status callbacks find the server gone.
    LOG_LEVEL: "error"
  }, async ({ base, databaseUrl: scratch }) => {
    const email = `bench.${randomBytes(4).toString("hex")}@example.com`
    const signup = await json(base, "POST", "/platform/dashboard/signup", { email, password: "bench-Password-1!", name: "bench" })
    const cookie = (signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev=")) ?? "").split(";")[0]!
    await query(scratch, `update developer_accounts set plan = 'business' where id = $1`, [signup.body.account.id])
    const created = await json(base, "POST", "/platform/dashboard/api-keys", { name: "bench", rate_limit_per_minute: 100_000_000 }, { cookie })
    const channel = await json(base, "POST", "/platform/dashboard/channels/connect/chat", {
      code: "sandbox-code",
      phone_number_id: "100200300401",
      waba_id: "900800701"
    }, { cookie })
    const channelId = channel.body.channel_id as number
    // The per-channel upstream throttle (80/s by default, 1,000/s for upgraded numbers) would
    // cap the run at Meta's rate; the benchmark measures the platform, so the channel is unlimited.
    await query(scratch, `update platform_channels set throughput_per_second = 1000000 where id = $1`, [channelId])

    console.log(`bench:send  ${connections} connections, ${seconds} s, ${peers} recipients${idempotency ? ", Idempotency-Key on every request" : ""}`)
    await run(base, created.body.key, channelId, 3, [])
    const upstream: Array<number> = []
    const [before] = (await query(scratch, `select count(*)::int as n from messages where direction = 'outbound'`)).rows
    const result = await run(base, created.body.key, channelId, seconds, upstream)
    const [after] = (await query(scratch, `select count(*)::int as n from messages where direction = 'outbound'`)).rows
    upstream.sort((a, b) => a - b)
    const ok = result.requests.total - result.non2xx
    console.log(`sustained     ${(ok / seconds).toFixed(0)} sends/s (${ok} in ${seconds} s; non-2xx ${result.non2xx}, errors ${result.errors})`)
    console.log(`latency       p50 ${result.latency.p50} ms   p90 ${result.latency.p90} ms   p99 ${result.latency.p99} ms   max ${result.latency.max} ms`)
    console.log(`upstream call p50 ${percentile(upstream, 50).toFixed(1)} ms   p99 ${percentile(upstream, 99).toFixed(1)} ms   (Server-Timing, ${upstream.length} samples; sandbox in-process over loopback)`)
    console.log(`recorded      ${after.n - before.n} outbound messages (one statement each: contact, conversation, message, message.sent)`)
  })

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
