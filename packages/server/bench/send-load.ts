/**
 * Load generator for `bench:send`, run in its own process: POSTs text sends
 * (`/platform/v1/messages` shape) round-robin over the channels, to a spread of
 * recipients, at a fixed overall rate or unlimited, optionally with a fresh
 * Idempotency-Key on each. Per response it pairs the end-to-end latency with the
 * target's `Server-Timing: upstream;dur=`; the difference is the target's own time.
 * Prints a JSON summary.
 * argv: url key channelIds(comma-separated) rate(0 = unlimited) seconds connections peers idempotency(0|1)
 */
import autocannon from "autocannon"
import { randomBytes } from "node:crypto"

const [url, key, channelList, rate, seconds, connections, peers, idempotency] = process.argv.slice(2) as [
  string, string, string, string, string, string, string, string
]
const channelIds = channelList.split(",").map(Number)
const prefix = randomBytes(4).toString("hex")
let seq = 0

const e2e: Array<number> = []
const upstream: Array<number> = []
const own: Array<number> = []

const sortedPercentile = (values: Array<number>, p: number) => {
  if (values.length === 0) return NaN
  values.sort((a, b) => a - b)
  return values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!
}

interface Client {
  on(event: "headers", listener: (opts: { readonly headers?: ReadonlyArray<string> }) => void): void
  on(event: "response", listener: (status: number, bytes: number, ms: number) => void): void
}

autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  ...(Number(rate) > 0 ? { overallRate: Number(rate) } : {}),
  requests: [{
    method: "POST",
    setupRequest: (request) => {
      seq++
      // 1777…: none of the simulator's magic recipients (1555…), which answer errors.
      const to = `1777${String(seq % Number(peers)).padStart(7, "0")}`
      return {
        ...request,
        headers: {
          "content-type": "application/json",
          "x-api-key": key,
          ...(idempotency === "1" ? { "idempotency-key": `bench-${prefix}-${seq}` } : {})
        },
        body: `{"channel_id":${channelIds[seq % channelIds.length]},"to":"${to}","type":"text","text":"Order #${seq} has shipped"}`
      }
    }
  }],
  setupClient: (client: Client) => {
    let upstreamMs: number | undefined
    client.on("headers", (opts) => {
      upstreamMs = undefined
      const headers = opts.headers ?? []
      for (let i = 0; i < headers.length; i += 2) {
        if (String(headers[i]).toLowerCase() === "server-timing") {
          const match = /upstream;dur=([\d.]+)/.exec(String(headers[i + 1]))
          if (match) upstreamMs = Number(match[1])
        }
      }
    })
    client.on("response", (status, _bytes, ms) => {
      if (status !== 200 || upstreamMs === undefined) return
      e2e.push(ms)
      upstream.push(upstreamMs)
      own.push(Math.max(0, ms - upstreamMs))
    })
  }
}, (error, result) => {
  if (error) {
    console.error(error)
    process.exit(1)
  }
  const duration = result.duration || Number(seconds)
  process.stdout.write(JSON.stringify({
    rps: (result.requests.total - result.non2xx) / duration,
    p50: sortedPercentile(e2e, 50),
    p99: sortedPercentile(e2e, 99),
    upstreamP50: sortedPercentile(upstream, 50),
    upstreamP99: sortedPercentile(upstream, 99),
    ownP50: sortedPercentile(own, 50),
    ownP99: sortedPercentile(own, 99),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total
  }))
})
