import { NORMALIZED_STUCK_LEASE_SECONDS } from "@platform/shared"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { inboundText, signedBody } from "../fixtures/meta/inbound.js"
import { type Deployment, type Kill, killBusiestWorker, post, sleep, startDeployment, until, whileRedisAnswers } from "./deployment.js"
import { runToExit, type ServerProcess, startServer, stopServer } from "./processes.js"
import type { Delivery } from "./recording-receiver.js"

/*
 * The deployment of README "Running in production", run for real: two ROLE=api and two
 * ROLE=worker processes of the built server (dist/main.js) over one PostgreSQL database and one
 * Redis. Inbound webhooks go through both API processes; a worker is killed with SIGKILL while
 * deliveries are in flight; then a key's rate limit and a sender's upstream throttle are checked
 * across the two API processes. Needs DATABASE_URL (a scratch database is made next to it and
 * dropped) and Redis (REDIS_URL, default redis://127.0.0.1:6379; logical database 9 unless the URL
 * names one, and only this run's keys are touched). Embedded PGlite is one process by design,
 * which the second block shows instead.
 */

const DATABASE_URL = process.env.DATABASE_URL ?? ""
const POSTGRES = DATABASE_URL !== ""

/** Redis for the processes: REDIS_URL, in a logical database of its own unless the URL names one. */
const redisUrl = () => {
  const url = new URL(process.env.REDIS_URL || "redis://127.0.0.1:6379")
  if (url.pathname === "" || url.pathname === "/") url.pathname = "/9"
  return url.toString()
}

const CONVERSATIONS = 16
const MESSAGES_PER_CONVERSATION = 20
/** Conversations start this far apart, so their first rows are fanned out by either worker. */
const STAGGER_MS = 60
/** Between one acknowledged message of a conversation and its next. */
const PACE_MS = 20
/** The receiver holds each answer this long: a worker killed at any moment has POSTs open. */
const HOLD_MS = 40
/** The worker is killed once this share of the inbound messages has been acknowledged. */
const KILL_AT_SHARE = 0.4
/** The pump's POST window per process (delivery/pump.ts maxInFlight); its recorders' turns may take up to as many again. */
const POST_WINDOW = 256
const LEASE_MS = NORMALIZED_STUCK_LEASE_SECONDS * 1000
/** DELIVERY_LEASE_MS (default): a holder that has not renewed its heartbeat for this long is dead (delivery/holder.ts). */
const HOLDER_LEASE_MS = 10_000
/** The lease reclaimer's period (delivery-workers.ts): a sixth of the holder lease. */
const RECLAIM_PERIOD_MS = HOLDER_LEASE_MS / 6
const RATE_LIMIT = 10
const RATE_LIMIT_EXTRA = 6
const THROUGHPUT = 4
const BURST = 12
/** How long a send waits for its throttle slot before 502 upstream_throttled (upstream/throttle.ts). */
const THROTTLE_MAX_WAIT_MS = 1_000

const drill = () => describe("two ROLE=api and two ROLE=worker processes over one PostgreSQL and one Redis", () => {
  const teardown: Array<() => Promise<unknown>> = []
  let deployment: Deployment

  beforeAll(async () => {
    deployment = await startDeployment({ databaseUrl: DATABASE_URL, redisUrl: redisUrl(), holdMs: HOLD_MS }, teardown)
  }, 90_000)

  afterAll(async () => {
    for (const undo of teardown.reverse()) await undo()
  }, 60_000)

  it("inbound through both API processes, a worker SIGKILLed mid-flight: every acknowledged message delivered, duplicates only of what it held, conversation order kept", async () => {
    const peers = Array.from({ length: CONVERSATIONS }, (_, k) => `5511977${String(k).padStart(6, "0")}`)
    const total = CONVERSATIONS * MESSAGES_PER_CONVERSATION
    const sent: Array<{ peer: string; seq: number; text: string; via: string; status: number; answer: string }> = []
    let acknowledged = 0
    const started = Date.now()
    const { apis, receiver, db, line, appSecret, subscriptionId } = deployment
    let kill: Promise<Kill> | undefined

    // Each conversation's messages one after the other, each sent once the previous one was
    // acknowledged (so its events are in the order sent), alternating between the API processes;
    // conversations in parallel.
    await Promise.all(peers.map(async (peer, k) => {
      await sleep(k * STAGGER_MS)
      for (let seq = 0; seq < MESSAGES_PER_CONVERSATION; seq++) {
        const text = `c${k} m${seq}`
        const via = apis[(k + seq) % 2]!
        const { body, signature } = signedBody(inboundText(line, peer, text), appSecret)
        const res = await fetch(`${via.base}/webhook/incoming`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-hub-signature-256": signature },
          body
        })
        const answer = await res.text()
        sent.push({ peer, seq, text, via: via.name, status: res.status, answer })
        if (res.status >= 200 && res.status < 300) acknowledged++
        // The worker with the most POSTs open at the receiver goes, so that the kill lands on work in flight.
        if (kill === undefined && acknowledged >= total * KILL_AT_SHARE) kill = killBusiestWorker(deployment)
        await sleep(PACE_MS)
      }
    }))
    const driven = Date.now()
    const { killAt, ports: victimPorts, victim } = await kill!
    expect(await victim.exited).toBeNull()

    // What the killed worker held: rows it had claimed (delivering, leased before the kill) that
    // are still delivering seconds later, when the other worker has long recorded its own.
    await sleep(Math.max(0, killAt + 3_000 - Date.now()))
    const orphaned = new Map((await db.query<{ event_id: string; delivering_since: Date }>(
      `select event_id, delivering_since from webhook_deliveries
       where subscription_id = $1 and status = 'delivering' and delivering_since < $2`,
      [subscriptionId, new Date(killAt)]
    )).rows.map((r) => [r.event_id, r.delivering_since.getTime()] as const))

    const acked = sent.filter((s) => s.status >= 200 && s.status < 300)
    const received = () => new Set(receiver.deliveries.map((d) => d.text))
    await until(async () => {
      const got = received()
      if (!acked.every((s) => got.has(s.text))) return false
      const { rows } = await db.query<{ open: number }>(
        `select count(*) filter (where status <> 'delivered')::int as open from webhook_deliveries where subscription_id = $1`,
        [subscriptionId]
      )
      return rows[0]!.open === 0
    }, LEASE_MS + 45_000, "every acknowledged message to be delivered and every delivery row recorded")
    const done = Date.now()

    // The API processes were never touched: every POST is acknowledged, stored and routed.
    expect(sent.length).toBe(total)
    expect(acked.length).toBe(total)
    expect(sent.filter((s) => s.answer.includes("ignored"))).toEqual([])
    expect(new Set(sent.map((s) => s.via))).toEqual(new Set(["api-1", "api-2"]))

    const deliveries = receiver.deliveries
    expect(deliveries.filter((d) => !d.signatureOk)).toEqual([])
    const byText = new Map<string, Array<Delivery>>()
    for (const d of deliveries) byText.set(d.text, [...(byText.get(d.text) ?? []), d])
    // At least once, each message as one event (one event id however often it came).
    for (const s of acked) expect(byText.get(s.text)?.length ?? 0, s.text).toBeGreaterThanOrEqual(1)
    for (const [text, list] of byText) expect(new Set(list.map((d) => d.eventId)).size, text).toBe(1)
    const { rows: [rowCount] } = await db.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where subscription_id = $1`,
      [subscriptionId]
    )
    expect(rowCount!.n).toBe(total)

    // The killed worker's POSTs: on the connections it had open to the receiver (ended with it).
    const victimConnections = new Set(receiver.connections.filter((c) =>
      victimPorts !== undefined
        ? victimPorts.has(c.remotePort) && c.openedAt <= killAt && (c.closedAt === undefined || c.closedAt >= killAt)
        : c.endedAt !== undefined && c.endedAt >= killAt && c.endedAt < killAt + 1_000
    ).map((c) => c.id))
    // In flight at the kill, as the receiver saw it: sent by the killed worker, answered only after
    // it died (a POST it had written may even be read here after the kill).
    const inFlight = deliveries.filter((d) =>
      victimConnections.has(d.connection) && (d.answeredAt === undefined || d.answeredAt >= killAt))
    if (victimPorts !== undefined) expect(inFlight.length, "the kill landed on POSTs in flight").toBeGreaterThanOrEqual(1)

    // Duplicates are rows the killed worker held, never more than it held, and the window is the pump's.
    const counts = new Map<string, number>()
    for (const d of deliveries) counts.set(d.eventId, (counts.get(d.eventId) ?? 0) + 1)
    const duplicated = [...counts].filter(([, n]) => n > 1)
    const duplicates = duplicated.reduce((sum, [, n]) => sum + n - 1, 0)
    expect(inFlight.filter((d) => !orphaned.has(d.eventId))).toEqual([])
    expect(duplicated.filter(([id]) => !orphaned.has(id))).toEqual([])
    expect(duplicates).toBeLessThanOrEqual(orphaned.size)
    expect(orphaned.size).toBeLessThanOrEqual(2 * POST_WINDOW)

    // Taken over once the dead worker's heartbeat lapsed: each held row comes again from the other
    // worker within the holder lease + a reclaim period, well before the 30 s lease of a hung one.
    const takeOver = [...orphaned.keys()].map((id) => {
      const again = deliveries.find((d) => d.eventId === id && d.at > killAt && !victimConnections.has(d.connection))
      expect(again, `event ${id} held by the killed worker was never delivered by the other one`).toBeDefined()
      return again!.at - killAt
    })
    for (const ms of takeOver) expect(ms).toBeLessThanOrEqual(HOLDER_LEASE_MS + RECLAIM_PERIOD_MS + 5_000)

    // Per conversation, first deliveries in the order the messages were acknowledged, except
    // that a row stuck in delivering past the lease no longer holds back the ones after it
    // (SPEC §6.4): only a row the killed worker held, and only once its lease had run out.
    const first = new Map<string, Delivery>()
    for (const d of deliveries) if (!first.has(d.text)) first.set(d.text, d)
    const eventOf = (text: string) => first.get(text)!.eventId
    const violations: Array<string> = []
    for (const peer of peers) {
      const order = acked.filter((s) => s.peer === peer).sort((a, b) => a.seq - b.seq)
      for (let i = 0; i < order.length; i++) {
        for (let j = i + 1; j < order.length; j++) {
          const a = first.get(order[i]!.text)!
          const b = first.get(order[j]!.text)!
          if (b.n > a.n) continue
          const since = orphaned.get(eventOf(order[i]!.text))
          if (since !== undefined && b.at >= since + LEASE_MS) continue
          violations.push(`${order[j]!.text} (#${b.n}) before ${order[i]!.text} (#${a.n})`)
        }
      }
    }
    expect(violations).toEqual([])

    const inFlightEvents = new Set(inFlight.map((d) => d.eventId))
    console.info(JSON.stringify({
      multi_instance_drill: {
        inbound_sent: total,
        acknowledged: acked.length,
        delivered_events: counts.size,
        deliveries_received: deliveries.length,
        duplicates,
        duplicated_events: duplicated.length,
        held_by_killed_worker: orphaned.size,
        in_flight_at_kill: inFlight.length,
        duplicates_of_in_flight: duplicated.filter(([id]) => inFlightEvents.has(id)).length,
        duplicates_answered_but_unrecorded: duplicated.filter(([id]) => !inFlightEvents.has(id)).length,
        post_window_bound: POST_WINDOW,
        killed: victim.name,
        posts_by_killed_worker: deliveries.filter((d) => victimConnections.has(d.connection)).length,
        posts_by_other_worker_before_kill: deliveries.filter((d) => d.at < killAt && !victimConnections.has(d.connection)).length,
        killed_after_ms: killAt - started,
        drive_ms: driven - started,
        take_over_first_ms: takeOver.length === 0 ? null : Math.min(...takeOver),
        take_over_last_ms: takeOver.length === 0 ? null : Math.max(...takeOver),
        all_delivered_after_kill_ms: done - killAt,
        order_violations: violations.length
      }
    }))
  }, LEASE_MS + 90_000)

  it(`a key limited to ${RATE_LIMIT} a minute gets exactly ${RATE_LIMIT} of ${RATE_LIMIT + RATE_LIMIT_EXTRA} requests split across both API processes`, async () => {
    const { apis, store } = deployment
    const { result: { replies, window }, setAside } = await whileRedisAnswers(apis, "rate limiter", async () => {
      const { key, window } = await deployment.limitedKey(RATE_LIMIT)
      const replies = await Promise.all(Array.from({ length: RATE_LIMIT + RATE_LIMIT_EXTRA }, async (_, i) => {
        const via = apis[i % 2]!
        const res = await fetch(`${via.base}/platform/v1/channels`, { headers: { "x-api-key": key } })
        await res.arrayBuffer()
        return { via: via.name, status: res.status }
      }))
      return { replies, window }
    })
    const admitted = replies.filter((r) => r.status === 200)
    expect(admitted.length, JSON.stringify(replies)).toBe(RATE_LIMIT)
    expect(replies.filter((r) => r.status === 429).length).toBe(RATE_LIMIT_EXTRA)
    // One window for both processes: the key's sorted set in Redis holds every admitted request.
    expect(await store.zcard(window)).toBe(RATE_LIMIT)
    console.info(JSON.stringify({
      multi_instance_rate_limit: {
        limit: RATE_LIMIT,
        requests: replies.length,
        admitted: admitted.length,
        refused_429: replies.length - admitted.length,
        admitted_by_api_1: admitted.filter((r) => r.via === "api-1").length,
        admitted_by_api_2: admitted.filter((r) => r.via === "api-2").length,
        attempts_set_aside_for_redis_deadline: setAside
      }
    }))
  }, 30_000)

  it(`sends through both API processes to one number at ${THROUGHPUT}/s share one throttle schedule: slots ${1000 / THROUGHPUT} ms apart across processes`, async () => {
    const { apis, db, channelId, key, store, throttleKey } = deployment
    // A channel's throughput comes from its number's tier at connect (STANDARD 80/s); set a low one.
    await db.query(`update platform_channels set throughput_per_second = $1 where id = $2`, [THROUGHPUT, channelId])
    await db.query(`select pg_notify('platform_channel_changes', $1)`, [String(channelId)])
    await sleep(500)
    const interval = 1000 / THROUGHPUT
    const send = (via: ServerProcess, to: string, text: string) =>
      post(`${via.base}/platform/v1/messages`, { channel_id: channelId, to, type: "text", text }, { "x-api-key": key })
    // One send through each process first (key, channel and connections looked up and cached),
    // so that the burst reaches the throttle at once; then the sender's schedule runs empty.
    for (const via of apis) expect((await send(via, "15550309999", `warm ${via.name}`)).status).toBe(200)
    const { result: { replies, slot, start }, setAside } = await whileRedisAnswers(apis, "upstream throttle", async () => {
      await until(async () => (await store.exists(throttleKey)) === 0, 5_000, "the sender's last throttle slot to expire")
      // The sender's key, read all along the burst: it expires a second after its slot, which a
      // slow last answer could outlast.
      let slot = 0
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          slot = Math.max(slot, Number(await store.get(throttleKey)))
          await sleep(10)
        }
      })()
      const start = Date.now()
      const replies = await Promise.all(Array.from({ length: BURST }, async (_, i) => {
        const via = apis[i % 2]!
        const reply = await send(via, `1555030${String(i).padStart(4, "0")}`, `throttle ${i}`)
        return { ...reply, via: via.name, at: Date.now() }
      }))
      sampling = false
      await sampler
      return { replies, slot, start }
    })
    const accepted = replies.filter((r) => r.status === 200).sort((a, b) => a.at - b.at)
    const refused = replies.filter((r) => r.status === 502)
    expect(accepted.length + refused.length, JSON.stringify(replies.map((r) => [r.status, r.text]))).toBe(BURST)
    for (const r of refused) expect(r.body.error).toBe("upstream_throttled")
    // Every slot a caller may wait for (1 s) is granted, in one series, so at least rate × 1 s + 1.
    expect(accepted.length).toBeGreaterThanOrEqual(1 + THROUGHPUT * THROTTLE_MAX_WAIT_MS / 1000)
    // The k-th answer comes no sooner than k intervals after the burst started, whichever
    // process sent it (two schedules of their own would answer a send of each at once).
    accepted.forEach((r, k) => expect(r.at - start, `accepted send ${k} (${r.via})`).toBeGreaterThanOrEqual(k * interval - 5))
    // The sender's one key holds the slot after the last accepted send: accepted × interval after the first.
    expect(slot).toBeGreaterThan(0)
    const nextFreeMs = slot / 1000
    expect(nextFreeMs).toBeGreaterThanOrEqual(start + accepted.length * interval - 2)
    expect(nextFreeMs).toBeLessThanOrEqual(accepted.at(-1)!.at + interval + 2)
    console.info(JSON.stringify({
      multi_instance_throttle: {
        throughput_per_second: THROUGHPUT,
        sends: BURST,
        accepted: accepted.length,
        refused_upstream_throttled: refused.length,
        accepted_by_api_1: accepted.filter((r) => r.via === "api-1").length,
        accepted_by_api_2: accepted.filter((r) => r.via === "api-2").length,
        accepted_at_ms: accepted.map((r) => r.at - start),
        next_free_slot_after_ms: Math.round(nextFreeMs - start),
        attempts_set_aside_for_redis_deadline: setAside
      }
    }))
  }, 30_000)
})

const embedded = () => describe("several instances need DATABASE_URL", () => {
  it("on embedded PGlite a ROLE=worker cannot join a ROLE=api on its database: it exits 1 naming the directory and the running server", async () => {
    const dir = mkdtempSync(join(tmpdir(), "platform-multi-"))
    const env = { DATA_DIR: join(dir, "data"), PGLITE_DIR: join(dir, "data", "pglite"), PORT: "0" }
    let api: ServerProcess | undefined
    try {
      api = await startServer("api", { ...env, ROLE: "api" })
      const worker = await runToExit({ ...env, ROLE: "worker" })
      expect(worker.code).toBe(1)
      expect(worker.stderr).toBe(
        `Cannot start: the embedded database in ${env.PGLITE_DIR} is in use by another server (pid ${api.child.pid}). ` +
          "Stop that one first, or give this one its own PGLITE_DIR (or a DATABASE_URL).\n"
      )
      expect((await fetch(`${api.base}/readyz`)).status).toBe(200)
    } finally {
      if (api !== undefined) await stopServer(api)
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

// One block or the other, never a skipped test: on embedded PGlite the drill does not apply, and
// what stands in for it is the refusal that makes it so.
if (POSTGRES) drill()
else embedded()
