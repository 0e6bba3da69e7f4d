import { verify as octokitVerify } from "@octokit/webhooks-methods"
import { createHmac, timingSafeEqual } from "node:crypto"
import { verify, verifyAndParse } from "../src/index.js"
import { sign } from "../src/testing.js"

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

function envelope(i: number): Record<string, unknown> {
  return {
    id: `evt_${i.toString(16).padStart(32, "0")}`,
    event: "message.received",
    developer_account_id: 42,
    platform_channel_id: 7,
    occurred_at: "2025-01-15T10:30:00.000Z",
    api_version: "platform-v1",
    data: {
      message_id: 1000 + i,
      conversation_id: 55,
      peer_id: "5511999990000",
      direction: "inbound",
      source: "contact",
      type: "text",
      text: "Olá! Tudo bem? 👋🏽",
      has_media: false,
      media_id: null,
      status: null,
      meta_message_id: `wamid.${i}`
    }
  }
}

/** A batch body of about `size` bytes (a single envelope padded through its text for the 1 KB case). */
function bodyOf(size: number): string {
  if (size <= 1024) {
    const one = envelope(1)
    const base = JSON.stringify(one).length
    ;(one.data as { text: string }).text += "x".repeat(Math.max(0, size - base))
    return JSON.stringify(one)
  }
  const events: Array<Record<string, unknown>> = []
  while (JSON.stringify({ events }).length < size) events.push(envelope(events.length))
  return JSON.stringify({ events })
}

type Op = () => unknown

/** Runs `op` for about `ms` milliseconds and returns ops/s; awaits only when `op` returns a promise. */
async function run(op: Op, ms: number): Promise<number> {
  let n = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < ms) {
    for (let i = 0; i < 100; i++) {
      const result = op()
      if (result instanceof Promise) await result
    }
    n += 100
    elapsed = performance.now() - start
  }
  return (n / elapsed) * 1000
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Measures contenders interleaved (rotating order each round) so load drift on a shared machine hits all alike; returns median ops/s and median per-round ratios to the first two. */
async function compare(contenders: Record<string, Op>, rounds: number, ms: number) {
  const names = Object.keys(contenders)
  for (const name of names) await run(contenders[name]!, ms / 2)
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]!)
    for (const name of order) samples[name]!.push(await run(contenders[name]!, ms))
  }
  const [ours, bare, octokit] = names.map((n) => samples[n]!)
  return {
    ours: median(ours!),
    bare: median(bare!),
    octokit: median(octokit!),
    vsBare: median(ours!.map((v, i) => v / bare![i]!)),
    vsOctokit: median(ours!.map((v, i) => v / octokit![i]!))
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(9)
const ratio = (n: number) => `${n.toFixed(2)}×`.padStart(6)

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 9)
  const ms = Number(process.env.BENCH_MS ?? 250)
  console.log(`node ${process.version} ${process.arch}; ${rounds} interleaved rounds of ${ms} ms; string bodies; ops/s (median) and median per-round ratios\n`)
  console.log(`${"body".padEnd(8)} ${"operation".padEnd(13)} ${"ours".padStart(9)} ${"bare".padStart(9)} ${"octokit".padStart(9)}  ours/bare  ours/octokit`)
  for (const size of [1024, 64 * 1024]) {
    const body = bodyOf(size)
    const label = `${(new TextEncoder().encode(body).byteLength / 1024).toFixed(1)} KB`
    const header = await sign(SECRET, body)
    const bareVerify = () =>
      timingSafeEqual(createHmac("sha256", SECRET).update(body).digest(), Buffer.from(header.slice("sha256=".length), "hex"))
    if (!bareVerify() || !(await octokitVerify(SECRET, body, header)) || !(await verifyAndParse(SECRET, body, header)).ok) {
      throw new Error("benchmark inputs do not verify")
    }
    const withParse = await compare(
      {
        ours: () => verifyAndParse(SECRET, body, header),
        bare: () => (bareVerify() ? JSON.parse(body) : undefined),
        octokit: () => octokitVerify(SECRET, body, header).then((ok) => (ok ? JSON.parse(body) : undefined))
      },
      rounds,
      ms
    )
    const verifyOnly = await compare(
      {
        ours: () => verify(SECRET, body, header),
        bare: bareVerify,
        octokit: () => octokitVerify(SECRET, body, header)
      },
      rounds,
      ms
    )
    for (const [operation, r] of [["verify+parse", withParse], ["verify only", verifyOnly]] as const) {
      console.log(
        `${label.padEnd(8)} ${operation.padEnd(13)} ${fmt(r.ours)} ${fmt(r.bare)} ${fmt(r.octokit)}  ${ratio(r.vsBare).padStart(9)}  ${ratio(r.vsOctokit).padStart(11)}`
      )
    }
  }
  console.log(
    "\nbare = createHmac + timingSafeEqual (+ JSON.parse for verify+parse), the limit; octokit = @octokit/webhooks-methods verify (+ JSON.parse)." +
      "\nGoal: ours/bare >= 0.80, ours/octokit >= 1.50."
  )
}

await main()
