/**
 * What bench:delivery prints at the end: every round, then the medians with their goals
 * (issue 43: D >= 1.6 x BullMQ and >= 1.3 x the SKIP LOCKED loop, p50 <= 10 ms and p99 <= 50 ms
 * at 50 % of D, O/D >= 0.9, peak RSS <= 400 MB).
 */
import { parseDatabaseUrl } from "../src/db/client.js"
import { databaseUrl } from "./delivery-processes.js"
import { REDIS_URL } from "./peers.js"
import { mb } from "./rss.js"
import { median } from "./support.js"

/** One POST of E: the same request every time. */
export interface BenchRequest {
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}
export const shape = (r: BenchRequest) => `${Object.keys(r.headers).length} headers, ${r.body.length} bytes`

export const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "n/a")
/** A ratio as printed: three decimals, so 0.396 does not read as the goal's 0.40. */
const ratio = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "n/a")
const verdict = (ok: boolean) => (ok ? "ok" : "MISSED")

/** One round's figures (ev/s; E and E1 req/s; B and L NaN when the peers were not run). */
export interface Round {
  readonly E: number
  readonly E1: number
  readonly D: number
  readonly O: number
  readonly B: number
  readonly L: number
}

export interface Report {
  readonly rounds: ReadonlyArray<Round>
  readonly E0: number | undefined
  /** The latency phase's offered rate, ev/s, and what it measured (ms). */
  readonly rate: number
  readonly latencies: number
  readonly p50: number
  readonly p99: number
  readonly enginePeakMb: number
  readonly events: number
  readonly conversations: number
  /** The shapes of E's and E1's requests. */
  readonly delivery: string
  readonly light: string
}

export const report = (r: Report) => {
  const of = (f: (round: Round) => number) => median(r.rounds.map(f))
  const [E, E1, D, O, B, L] = [of((x) => x.E), of((x) => x.E1), of((x) => x.D), of((x) => x.O), of((x) => x.B), of((x) => x.L)]
  const DE = of((x) => x.D / x.E)
  const DE1 = of((x) => x.D / x.E1)
  const OD = of((x) => x.O / x.D)
  const DB = of((x) => x.D / x.B)
  const DL = of((x) => x.D / x.L)
  const lines = [
    ...r.rounds.map((x, i) =>
      `round ${i + 1}: E ${fmt(x.E)} req/s (E1 ${fmt(x.E1)}), D ${fmt(x.D)} ev/s, O ${fmt(x.O)} ev/s, ` +
      `D/E ${ratio(x.D / x.E)} (D/E1 ${ratio(x.D / x.E1)}), O/D ${ratio(x.O / x.D)}, ` +
      `BullMQ ${fmt(x.B)} ev/s (D/B ${ratio(x.D / x.B)}), loop ${fmt(x.L)} ev/s (D/L ${ratio(x.D / x.L)})`
    ),
    `medians of ${r.rounds.length} round(s):`,
    `E  (transport -> echo, 128 concurrent)      ${fmt(E)} req/s   (a delivery's request: ${r.delivery})`,
    `D  (end to end, unordered, 1 subscription)  ${fmt(D)} ev/s          goal >= 2,000   ${verdict(D >= 2000)}`,
    `D/E                                         ${ratio(DE)}              goal >= 0.40    ${verdict(DE >= 0.4)}`,
    `E1 (the former E: ${r.light})     ${fmt(E1)} req/s   D/E1 ${ratio(DE1)}`,
    ...(r.E0 === undefined ? [] : [`E0 (safeFetch in fibers, E1's request)     ${fmt(r.E0)} req/s   D/E0 ${ratio(D / r.E0)}`]),
    `latency at ${fmt(r.rate)} ev/s (50% of D), n=${r.latencies}:  p50 ${r.p50} ms, p99 ${r.p99} ms   ` +
    `goal p50 <= 10, p99 <= 50 ms   ${verdict(r.p50 <= 10 && r.p99 <= 50)}`,
    `O  (ordered, ${r.conversations} conversations)          ${fmt(O)} ev/s   O/D ${ratio(OD)}  goal >= 0.9    ${verdict(OD >= 0.9)}`,
    `B  (BullMQ, concurrency 50, ${REDIS_URL})  ${fmt(B)} ev/s   D/B ${ratio(DB)}  goal >= 1.6   ${verdict(DB >= 1.6)}`,
    `L  (SKIP LOCKED loop, 4 claimers, batched UPDATE)  ${fmt(L)} ev/s   D/L ${ratio(DL)}  goal >= 1.3   ${verdict(DL >= 1.3)}`,
    `engine peak RSS (this process's VmHWM over the E, D, O and latency phases)  ${mb(r.enginePeakMb)}   ` +
    `goal <= 400 MB   ${verdict(r.enginePeakMb <= 400)}`
  ]
  return `\nbench:delivery (${r.events} events per throughput run, Postgres ${parseDatabaseUrl(databaseUrl).host})\n` +
    lines.join("\n")
}
