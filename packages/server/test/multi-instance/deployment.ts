import { Redis } from "ioredis"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { hashApiKeyHex } from "../../src/crypto/api-key-format.js"
import { parseDatabaseUrl } from "../../src/db/client.js"
import type { ChatLine } from "../fixtures/meta/inbound.js"
import { freePort, scratchDatabase, type ServerProcess, startServer, stopServer, tcpPortsTo } from "./processes.js"
import { type RecordingReceiver, startRecordingReceiver } from "./recording-receiver.js"

/*
 * Two ROLE=api and two ROLE=worker processes over one scratch database and one Redis, set up
 * through the API as a developer would: an account, a chat channel on the sandbox, two keys, and a
 * subscription to message.received that posts to a recording receiver.
 */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` every 200 ms until it holds; fails naming `what` after `timeoutMs`. */
export const until = async (check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(200)
  }
}

export interface Reply {
  readonly status: number
  readonly body: any
  readonly text: string
}

export const post = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  try {
    return { status: res.status, body: JSON.parse(text), text }
  } catch {
    return { status: res.status, body: undefined, text }
  }
}

const created = (what: string, reply: Reply) => {
  if (reply.status !== 201) throw new Error(`${what}: ${reply.status} ${reply.text}`)
  return reply.body
}

export interface Deployment {
  /** api-1 and api-2 (their PUBLIC_URL their own address: the sandbox upstream is served by each). */
  readonly apis: readonly [ServerProcess, ServerProcess]
  readonly workers: readonly [ServerProcess, ServerProcess]
  readonly receiver: RecordingReceiver
  /** A connection to the scratch database, for what the test reads and sets directly. */
  readonly db: pg.Client
  /** The processes' Redis (its logical database). */
  readonly store: Redis
  readonly appSecret: string
  readonly line: ChatLine
  readonly channelId: number
  /** Every scope, the default limit. */
  readonly key: string
  /** A new key with every scope and `perMinute` as its limit, and its window's key in Redis. */
  readonly limitedKey: (perMinute: number) => Promise<{ readonly key: string; readonly window: string }>
  readonly subscriptionId: number
  /** The channel's number's next free slot in Redis (upstream/throttle.ts). */
  readonly throttleKey: string
}

export interface DeploymentOptions {
  readonly databaseUrl: string
  readonly redisUrl: string
  /** How long the receiver holds each answer. */
  readonly holdMs: number
}

/**
 * Starts the deployment; `teardown` collects what undoes it (processes, database, Redis keys,
 * directories), run in reverse order by the caller even when start-up failed half-way.
 */
export const startDeployment = async (options: DeploymentOptions, teardown: Array<() => Promise<unknown>>): Promise<Deployment> => {
  const database = await scratchDatabase(options.databaseUrl)
  teardown.push(database.drop)
  const dataDir = mkdtempSync(join(tmpdir(), "platform-multi-"))
  teardown.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const receiver = await startRecordingReceiver(options.holdMs)
  teardown.push(receiver.close)
  const store = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await store.connect()
  teardown.push(async () => store.disconnect())
  const connection = parseDatabaseUrl(database.url)
  const db = new pg.Client({ ...connection, user: connection.username })
  await db.connect()
  teardown.push(() => db.end().catch(() => undefined))

  const appSecret = randomBytes(24).toString("base64url")
  const shared = {
    DATABASE_URL: database.url,
    REDIS_URL: options.redisUrl,
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    SESSION_SECRET: randomBytes(32).toString("base64"),
    META_APP_SECRET: appSecret,
    UNSAFE_ALLOW_LOCAL_TARGETS: "1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "info"
  }
  const start = async (name: string, env: Record<string, string>) => {
    const server = await startServer(name, { ...shared, ...env })
    teardown.push(() => stopServer(server))
    return server
  }
  const apiPorts = [await freePort(), await freePort()]
  // All four at once on the empty database: the migrator's lock lets one migrate, the others wait.
  // Settled, not raced: a process still starting when another fails is stopped by the teardown too.
  const starts = await Promise.allSettled([
    ...apiPorts.map((port, i) => start(`api-${i + 1}`, { ROLE: "api", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` })),
    start("worker-1", { ROLE: "worker", PORT: "0" }),
    start("worker-2", { ROLE: "worker", PORT: "0" })
  ])
  const failed = starts.find((s) => s.status === "rejected")
  if (failed !== undefined) throw failed.reason
  const [api1, api2, worker1, worker2] = starts.map((s) => (s as PromiseFulfilledResult<ServerProcess>).value)

  const phoneNumberId = String(300000000000000 + Math.floor(Math.random() * 99999999999999))
  const line = { phone_number_id: phoneNumberId, waba_id: `4${phoneNumberId.slice(1)}` }
  const signup = await fetch(`${api1!.base}/platform/dashboard/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "multi@example.com", password: "multi-instance password", name: "multi" })
  })
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`)
  const cookie = signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
  // Set up through both API processes: what one writes, the other serves.
  const channel = created("connect", await post(`${api1!.base}/platform/dashboard/channels/connect/chat`, { code: "multi", ...line }, { cookie }))
  const key = created("key", await post(`${api2!.base}/platform/dashboard/api-keys`, { name: "multi" }, { cookie }))
  const throttleKey = `platform:v1:throttle:chat:${phoneNumberId}`
  // Every key's requests leave a window in Redis: the key's bucket (auth/api-keys.ts) under the
  // Redis limiter's namespace (auth/rate-limiter.ts).
  const windowOf = (plaintext: string) => `platform:v1:ratelimit:v1:key:${hashApiKeyHex(plaintext).slice(0, 32)}`
  const redisKeys = [throttleKey, windowOf(key.key)]
  teardown.push(() => store.del(...redisKeys).catch(() => undefined))
  const limitedKey = async (perMinute: number) => {
    const limited = created("limited key", await post(`${api1!.base}/platform/dashboard/api-keys`, {
      name: `limited ${perMinute}`,
      rate_limit_per_minute: perMinute
    }, { cookie }))
    const window = windowOf(limited.key)
    redisKeys.push(window)
    return { key: limited.key as string, window }
  }
  const subscription = created("subscription", await post(`${api2!.base}/platform/v1/webhooks/subscriptions`, {
    target_url: receiver.url,
    event_types: ["message.received"],
    platform_channel_id: channel.channel_id
  }, { "x-api-key": key.key }))
  receiver.secret = subscription.secret

  return {
    apis: [api1!, api2!],
    workers: [worker1!, worker2!],
    receiver,
    db,
    store,
    appSecret,
    line,
    channelId: channel.channel_id,
    key: key.key,
    limitedKey,
    subscriptionId: subscription.id,
    throttleKey
  }
}

export interface Kill {
  readonly victim: ServerProcess
  readonly killAt: number
  /** The victim's local ports towards the receiver at the kill; undefined where /proc does not tell. */
  readonly ports: Set<number> | undefined
}

/**
 * Kills with SIGKILL the worker with the most POSTs open at the receiver, as soon as one has
 * any (within 5 s), so that the kill lands on work in flight. Which process a connection comes
 * from is read from /proc (Linux); elsewhere the first worker is killed.
 */
export const killBusiestWorker = async ({ receiver, workers }: Deployment): Promise<Kill> => {
  const receiverPort = Number(new URL(receiver.url).port)
  const deadline = Date.now() + 5_000
  for (;;) {
    const load = workers.map((worker) => {
      const ports = tcpPortsTo(worker.child.pid!, receiverPort)
      const mine = new Set(receiver.connections
        .filter((c) => c.closedAt === undefined && ports?.has(c.remotePort))
        .map((c) => c.id))
      return { worker, ports, open: receiver.deliveries.filter((d) => d.answeredAt === undefined && mine.has(d.connection)).length }
    })
    const busiest = load.reduce((a, b) => (b.open > a.open ? b : a))
    const attributed = load.every((l) => l.ports !== undefined)
    if (!attributed || busiest.open > 0 || Date.now() > deadline) {
      const victim = attributed ? busiest.worker : workers[0]
      // Nothing awaited since the count: the POSTs counted are still open when the signal goes.
      const killAt = Date.now()
      victim.child.kill("SIGKILL")
      return { victim, killAt, ports: attributed ? busiest.ports : undefined }
    }
    await sleep(2)
  }
}

/** What the processes logged of a store kept in Redis: outages begun and ended (redis/guarded-call.ts). */
const storeLog = (processes: ReadonlyArray<ServerProcess>, store: string) => {
  const count = (text: string) => processes.reduce((n, p) => n + p.output().split(text).length - 1, 0)
  return { down: count(`${store} store unavailable`), up: count(`${store} store available again`) }
}

/**
 * Runs `attempt` (up to 3 times) until one runs wholly while Redis answers every process in
 * time: a call that misses its 250 ms deadline (a starved event loop on a busy host is enough)
 * goes on without the store, limiting or throttling in that process alone (redis/guarded-call.ts),
 * and proves nothing about the shared one. Returns its result and how many attempts were set aside.
 */
export const whileRedisAnswers = async <A>(
  processes: ReadonlyArray<ServerProcess>,
  store: "rate limiter" | "upstream throttle",
  attempt: () => Promise<A>
): Promise<{ readonly result: A; readonly setAside: number }> => {
  for (let tries = 1;; tries++) {
    const before = storeLog(processes, store)
    const result = await attempt()
    const after = storeLog(processes, store)
    if (before.down === before.up && after.down === before.down && after.up === before.up) return { result, setAside: tries - 1 }
    if (tries === 3) throw new Error(`the ${store} store missed its deadline in 3 attempts in a row: the processes went on alone`)
  }
}
