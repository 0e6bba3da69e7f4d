import { verify as octokitNodeVerify } from "@octokit/webhooks-methods"
import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto"
import { setBackend, webCryptoBackend } from "../src/crypto.js"
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

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.round((values.length - 1) * q)]!

/** Median and interquartile range of the per-round ratios ours/other. */
function ratioOf(ours: number[], other: number[]) {
  const ratios = ours.map((v, i) => v / other[i]!)
  return { median: quantile(ratios, 0.5), low: quantile(ratios, 0.25), high: quantile(ratios, 0.75) }
}

type Contenders = { ours: Op; bare: Op; floor: Op; octokit: Op }

/** Measures contenders interleaved (rotating order each round) so load drift on a shared machine hits all alike; returns median ops/s and per-round ratios of ours to each other contender. */
async function compare(contenders: Contenders, rounds: number, ms: number) {
  const names = Object.keys(contenders) as Array<keyof Contenders>
  for (const name of names) await run(contenders[name], ms / 2)
  const samples = { ours: [], bare: [], floor: [], octokit: [] } as Record<keyof Contenders, number[]>
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]!)
    for (const name of order) samples[name].push(await run(contenders[name], ms))
  }
  return {
    ours: quantile(samples.ours, 0.5),
    bare: quantile(samples.bare, 0.5),
    floor: quantile(samples.floor, 0.5),
    octokit: quantile(samples.octokit, 0.5),
    vsBare: ratioOf(samples.ours, samples.bare),
    vsFloor: ratioOf(samples.ours, samples.floor),
    vsOctokit: ratioOf(samples.ours, samples.octokit)
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(9)
const ratio = (r: { median: number; low: number; high: number }) =>
  `${r.median.toFixed(2)}× (${r.low.toFixed(2)}–${r.high.toFixed(2)})`.padStart(19)

/** Constant-time comparison of the hex digits after "sha256=" with a hex digest: the floor's compare. */
function hexEqual(header: string, hex: string): boolean {
  let diff = 0
  for (let i = 0; i < 64; i++) diff |= header.charCodeAt(7 + i) ^ hex.charCodeAt(i)
  return diff === 0 && header.length === 71 && hex.length === 64
}

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 9)
  const ms = Number(process.env.BENCH_MS ?? 250)
  // BENCH_BACKEND=webcrypto measures ours on the path browsers and edge runtimes take (no node:crypto).
  // There the octokit contender is octokit's WebCrypto build (what bundlers pick for browsers and edge runtimes).
  const backend = process.env.BENCH_BACKEND === "webcrypto" ? "webcrypto" : "detected"
  let octokitVerify = octokitNodeVerify
  if (backend === "webcrypto") {
    setBackend(webCryptoBackend(globalThis.crypto.subtle))
    const web = import.meta.resolve("@octokit/webhooks-methods").replace("/dist-node/", "/dist-web/")
    octokitVerify = ((await import(web)) as { verify: typeof octokitNodeVerify }).verify
  }
  console.log(
    `node ${process.version} ${process.arch}; ours on the ${backend} backend; ${rounds} interleaved rounds of ${ms} ms; string bodies;` +
      " ops/s (median) and per-round ratios: median (interquartile range)\n"
  )
  console.log(
    `${"body".padEnd(8)} ${"operation".padEnd(13)} ${"ours".padStart(9)} ${"bare".padStart(9)} ${"floor".padStart(9)} ${"octokit".padStart(9)}` +
      `  ${"ours/bare".padStart(19)}  ${"ours/floor".padStart(19)}  ${"ours/octokit".padStart(19)}`
  )
  for (const size of [1024, 64 * 1024]) {
    const body = bodyOf(size)
    const label = `${(new TextEncoder().encode(body).byteLength / 1024).toFixed(1)} KB`
    const header = await sign(SECRET, body)
    const key = createSecretKey(Buffer.from(SECRET))
    const bareVerify = () =>
      timingSafeEqual(createHmac("sha256", SECRET).update(body).digest(), Buffer.from(header.slice("sha256=".length), "hex"))
    const floorVerify = () => hexEqual(header, createHmac("sha256", key).update(body).digest("hex"))
    if (
      !bareVerify() ||
      !floorVerify() ||
      !(await octokitVerify(SECRET, body, header)) ||
      !(await verifyAndParse(SECRET, body, header)).ok
    ) {
      throw new Error("benchmark inputs do not verify")
    }
    const withParse = await compare(
      {
        ours: () => verifyAndParse(SECRET, body, header),
        bare: () => (bareVerify() ? JSON.parse(body) : undefined),
        floor: () => (floorVerify() ? JSON.parse(body) : undefined),
        octokit: () => octokitVerify(SECRET, body, header).then((ok) => (ok ? JSON.parse(body) : undefined))
      },
      rounds,
      ms
    )
    const verifyOnly = await compare(
      {
        ours: () => verify(SECRET, body, header),
        bare: bareVerify,
        floor: floorVerify,
        octokit: () => octokitVerify(SECRET, body, header)
      },
      rounds,
      ms
    )
    for (const [operation, r] of [["verify+parse", withParse], ["verify only", verifyOnly]] as const) {
      console.log(
        `${label.padEnd(8)} ${operation.padEnd(13)} ${fmt(r.ours)} ${fmt(r.bare)} ${fmt(r.floor)} ${fmt(r.octokit)}` +
          `  ${ratio(r.vsBare)}  ${ratio(r.vsFloor)}  ${ratio(r.vsOctokit)}`
      )
    }
  }
  console.log(
    "\nbare = createHmac(secret string) + timingSafeEqual on the decoded hex (+ JSON.parse for verify+parse), issue #8's limit;" +
      "\nfloor = the same work with nothing else: a cached KeyObject, digest(\"hex\") and a constant-time XOR over the hex digits (+ JSON.parse);" +
      `\noctokit = @octokit/webhooks-methods verify, its ${backend === "webcrypto" ? "WebCrypto build" : "node:crypto build"} (+ JSON.parse).` +
      " bare and floor are synchronous native HMACs on the main thread." +
      "\nGoal (issue #8): ours/bare >= 0.80, ours/octokit >= 1.50."
  )
}

await main()
