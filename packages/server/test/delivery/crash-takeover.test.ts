import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { parseDatabaseUrl } from "../../src/db/client.js"
import { inboundText, signedBody } from "../fixtures/meta/inbound.js"
import { post, sleep, until } from "../multi-instance/deployment.js"
import { freePort, MAIN, runToExit, scratchDatabase, type ServerProcess, startServer, stopServer } from "../multi-instance/processes.js"

/*
 * The kill -9 drill of a worker (README "What a crash costs"): the built server (dist/main.js) as
 * one ROLE=api and one ROLE=worker process over a scratch PostgreSQL database; inbound messages
 * each make a normalized delivery and a raw forward, POSTed to a receiver that holds every answer,
 * so that the worker is SIGKILLed with POSTs of both kinds in flight; a second worker is started
 * then. Every delivery arrives; only what was in flight comes twice; the dead worker's rows are
 * taken over once its heartbeat has lapsed (DELIVERY_LEASE_MS, default 10 s), not after the 30 s
 * and 2-minute leases. CRASH_DRILL_MAIN runs another build's main.js (a baseline): the figures are
 * printed before anything is checked.
 */

const DATABASE_URL = process.env.DATABASE_URL ?? ""
const BUILD = process.env.CRASH_DRILL_MAIN ?? MAIN
const MESSAGES = 40
const HOLD_MS = 3_000
const LEASE_MS = 10_000
/** Worker 2's start, its first look for dead holders (a sixth of the lease) and a loaded 2-core host. */
const TAKE_OVER_BOUND_MS = LEASE_MS + 5_000
const WAIT_MS = Number(process.env.CRASH_DRILL_WAIT_MS ?? 60_000)

interface Seen {
  readonly kind: "normalized" | "raw"
  readonly id: string
  readonly at: number
  answeredAt?: number
}

const startReceiver = () =>
  new Promise<{ server: Server; url: string; seen: Array<Seen> }>((resolve) => {
    const seen: Array<Seen> = []
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        const raw = req.url === "/raw"
        const entry: Seen = {
          kind: raw ? "raw" : "normalized",
          id: String(raw ? req.headers["x-platform-delivery-id"] : req.headers["x-platform-event-id"]),
          at: Date.now()
        }
        seen.push(entry)
        res.on("finish", () => (entry.answeredAt = Date.now()))
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(200, { "content-type": "text/plain" }).end("ok")
        }, HOLD_MS)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })
    })
  })

/** What a kind's POSTs came to: duplicates, what was in flight at the kill, how soon the rest came again. */
const figuresOf = (seen: ReadonlyArray<Seen>, kind: Seen["kind"], killAt: number) => {
  const mine = seen.filter((s) => s.kind === kind)
  const first = new Map<string, Seen>()
  for (const s of mine) if (!first.has(s.id)) first.set(s.id, s)
  // In flight: sent and not answered when the worker died (or answered so shortly before that
  // its outcome may not have been recorded).
  const inFlight = mine.filter((s) => s.at < killAt && (s.answeredAt === undefined || s.answeredAt >= killAt - 250))
  const again = mine.filter((s) => s.at > killAt && first.get(s.id)!.at < killAt)
  return {
    distinct: first.size,
    duplicates: mine.length - first.size,
    inFlight: inFlight.length,
    inFlightIds: new Set(inFlight.map((s) => s.id)),
    repeatedIds: new Set(again.map((s) => s.id)),
    takeOverFirstMs: again.length === 0 ? null : Math.min(...again.map((s) => s.at - killAt)),
    takeOverLastMs: again.length === 0 ? null : Math.max(...again.map((s) => s.at - killAt))
  }
}

const drill = () => describe("a worker killed with SIGKILL while its POSTs are in flight", () => {
  const teardown: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const undo of teardown.reverse()) await undo()
  }, 60_000)

  it("its deliveries and raw forwards are taken over by the next worker within the lease, and only what was in flight is sent twice", async () => {
    const database = await scratchDatabase(DATABASE_URL)
    teardown.push(database.drop)
    const dataDir = mkdtempSync(join(tmpdir(), "platform-crash-"))
    teardown.push(async () => rmSync(dataDir, { recursive: true, force: true }))
    const receiver = await startReceiver()
    teardown.push(() => new Promise((done) => (receiver.server.closeAllConnections(), receiver.server.close(done))))
    const connection = parseDatabaseUrl(database.url)
    const db = new pg.Client({ ...connection, user: connection.username })
    await db.connect()
    teardown.push(() => db.end().catch(() => undefined))

    const appSecret = randomBytes(24).toString("base64url")
    const env = {
      DATABASE_URL: database.url,
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      SESSION_SECRET: randomBytes(32).toString("base64"),
      META_APP_SECRET: appSecret,
      UNSAFE_ALLOW_LOCAL_TARGETS: "1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      METRICS_PORT: "off"
    }
    const start = async (name: string, extra: Record<string, string>) => {
      const server = await startServer(name, { ...env, ...extra }, BUILD)
      teardown.push(() => stopServer(server))
      return server
    }
    const apiPort = await freePort()
    const api = await start("api", { ROLE: "api", PORT: String(apiPort), PUBLIC_URL: `http://127.0.0.1:${apiPort}` })
    const worker1 = await start("worker-1", { ROLE: "worker", PORT: "0" })

    const phoneNumberId = String(300000000000000 + Math.floor(Math.random() * 99999999999999))
    const line = { phone_number_id: phoneNumberId, waba_id: `4${phoneNumberId.slice(1)}` }
    const signup = await fetch(`${api.base}/platform/dashboard/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "crash@example.com", password: "crash drill password", name: "crash" })
    })
    expect(signup.status).toBe(201)
    const cookie = signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
    const channel = await post(`${api.base}/platform/dashboard/channels/connect/chat`, { code: "crash", ...line }, { cookie })
    expect(channel.status).toBe(201)
    const key = await post(`${api.base}/platform/dashboard/api-keys`, { name: "crash" }, { cookie })
    const subscription = await post(`${api.base}/platform/v1/webhooks/subscriptions`, {
      target_url: `${receiver.url}/normalized`,
      event_types: ["message.received"],
      platform_channel_id: channel.body.channel_id
    }, { "x-api-key": key.body.key })
    expect(subscription.status).toBe(201)
    await db.query(`update platform_channels set webhook_url = $1 where id = $2`, [`${receiver.url}/raw`, channel.body.channel_id])

    // One message per conversation, so that nothing waits on an earlier row of its own.
    for (let i = 0; i < MESSAGES; i++) {
      const { body, signature } = signedBody(inboundText(line, `55119${String(i).padStart(8, "0")}`, `m${i}`), appSecret)
      const res = await fetch(`${api.base}/webhook/incoming`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": signature },
        body
      })
      expect(res.status).toBe(200)
    }
    const open = (kind: Seen["kind"]) => receiver.seen.filter((s) => s.kind === kind && s.answeredAt === undefined).length
    await until(() => open("normalized") >= MESSAGES / 2 && open("raw") >= MESSAGES / 2, 20_000, "POSTs of both kinds in flight")
    const killAt = Date.now()
    worker1.child.kill("SIGKILL")
    expect(await worker1.exited).toBeNull()
    const worker2 = await start("worker-2", { ROLE: "worker", PORT: "0" })

    const counts = async () =>
      (await db.query<{ normalized: number; raw: number }>(
        `select (select count(*) from webhook_deliveries where status = 'delivered')::int as normalized,
                (select count(*) from platform_deliveries where status = 'delivered')::int as raw`
      )).rows[0]!
    await until(async () => {
      const c = await counts()
      return c.normalized === MESSAGES && c.raw === MESSAGES
    }, WAIT_MS, "every delivery and raw forward recorded delivered")
    const doneAt = Date.now()

    const normalized = figuresOf(receiver.seen, "normalized", killAt)
    const raw = figuresOf(receiver.seen, "raw", killAt)
    console.info(JSON.stringify({
      crash_drill: {
        build: BUILD,
        messages: MESSAGES,
        receiver_hold_ms: HOLD_MS,
        normalized: { ...normalized, inFlightIds: undefined, repeatedIds: undefined },
        raw: { ...raw, inFlightIds: undefined, repeatedIds: undefined },
        all_recorded_after_kill_ms: doneAt - killAt
      }
    }))

    expect(normalized.distinct).toBe(MESSAGES)
    expect(raw.distinct).toBe(MESSAGES)
    for (const figures of [normalized, raw]) {
      expect(figures.inFlight, "the kill landed on POSTs in flight").toBeGreaterThanOrEqual(1)
      // Only what was in flight is sent again, each once.
      expect([...figures.repeatedIds].filter((id) => !figures.inFlightIds.has(id))).toEqual([])
      expect(figures.duplicates).toBeLessThanOrEqual(figures.inFlight)
      expect(figures.duplicates).toBe(figures.repeatedIds.size)
      expect(figures.takeOverLastMs).not.toBeNull()
      expect(figures.takeOverLastMs!).toBeLessThanOrEqual(TAKE_OVER_BOUND_MS)
    }
    expect(worker2.output()).not.toMatch(/"level":"(ERROR|FATAL)"/)
  }, WAIT_MS + 60_000)
})

const embedded = () => describe("the crash drill needs DATABASE_URL", () => {
  it("on embedded PGlite a second worker cannot take over: a ROLE=worker refuses a database another process has open", async () => {
    const dir = mkdtempSync(join(tmpdir(), "platform-crash-"))
    const env = { DATA_DIR: join(dir, "data"), PGLITE_DIR: join(dir, "data", "pglite"), PORT: "0" }
    let first: ServerProcess | undefined
    try {
      first = await startServer("worker-1", { ...env, ROLE: "worker" })
      const second = await runToExit({ ...env, ROLE: "worker" })
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`Cannot start: the embedded database in ${env.PGLITE_DIR} is in use by another server (pid ${first.child.pid}).`)
    } finally {
      if (first !== undefined) await stopServer(first)
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

// One block or the other, never a skipped test (as test/multi-instance): on embedded PGlite one
// process owns the database, so no second worker can take over, which the second block shows.
if (DATABASE_URL !== "") drill()
else embedded()
