import { exec } from "node:child_process"
import { promisify } from "node:util"
import { mkdirSync, writeFileSync } from "node:fs"
import { randomUUID } from "node:crypto"
import { monitorEventLoopDelay } from "node:perf_hooks"
import pg from "pg"
import { inboundText, signedBody } from "../test/fixtures/meta/inbound.js"
import { post, sleep, startDeployment, until } from "../test/multi-instance/deployment.js"

/*
 * The operator's drill of issue 39: PostgreSQL restarted under load. Two ROLE=api and two
 * ROLE=worker processes of dist/main.js (test/multi-instance/deployment.ts) over a scratch
 * database on DRILL_DATABASE_URL's server; signed inbound webhooks at DRILL_RATE per second
 * through both API processes, delivered to a loopback receiver, and API sends with an
 * Idempotency-Key (retried with the same key after a 503) alongside; DRILL_RESTARTS restarts
 * of the database by DRILL_RESTART_CMD while it runs. It prints what an operator asks:
 * did every process survive, was anything acknowledged lost, was any send made twice, how
 * long /readyz was 503 and how soon it came back.
 *
 *   DRILL_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *   DRILL_RESTART_CMD="pg_ctlcluster 15 main restart" npm run drill:db-restart
 *
 * It restarts the server DRILL_DATABASE_URL names: never point it at a database others use.
 */

const databaseUrl = process.env.DRILL_DATABASE_URL
const restartCmd = process.env.DRILL_RESTART_CMD
if (databaseUrl === undefined || restartCmd === undefined) {
  console.error("Set DRILL_DATABASE_URL (an admin URL of the server to restart) and DRILL_RESTART_CMD (the command that restarts it).")
  process.exit(2)
}
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const rate = Number(process.env.DRILL_RATE ?? 60)
const seconds = Number(process.env.DRILL_SECONDS ?? 40)
const restarts = Number(process.env.DRILL_RESTARTS ?? 2)
const sendRate = Number(process.env.DRILL_SEND_RATE ?? 10)

interface Inbound { readonly text: string; readonly status: number; readonly error?: string }
interface Send { readonly key: string; readonly to: string; readonly text: string; readonly answers: Array<number>; messageId?: string; refusal?: string }

const teardown: Array<() => Promise<unknown>> = []
const main = async () => {
  const d = await startDeployment({ databaseUrl, redisUrl, holdMs: 5 }, teardown)
  const processes = [...d.apis, ...d.workers]
  // The deployment's own connection does not survive the restart: the figures are read on a new one.
  d.db.on("error", () => {})
  // Room for the drill: the free plan's 1,000 inbound messages a month and a key's 60 requests a minute would be the bound.
  await d.db.query("update developer_accounts set plan = 'business'")
  const { key: sendKey } = await d.limitedKey(100_000)
  await sleep(6_000) // the processes' account caches (5 s) see the plan
  const inbound: Array<Inbound> = []
  const sends: Array<Send> = []
  const readyz: Array<{ at: number; status: number }> = []
  const outages: Array<{ from: number; to: number }> = []
  const lag = monitorEventLoopDelay({ resolution: 20 })
  lag.enable()
  const started = Date.now()
  const until_ = started + seconds * 1000
  let running = true

  const probe = (async () => {
    while (running) {
      const status = await fetch(`${d.apis[0].base}/readyz`, { signal: AbortSignal.timeout(2_000) })
        .then((r) => r.status, () => 0)
      readyz.push({ at: Date.now(), status })
      await sleep(50)
    }
  })()

  const peers = Array.from({ length: 30 }, (_, i) => `1555020${String(i).padStart(4, "0")}`)
  let posted = 0
  const drive = (async () => {
    for (let n = 0; Date.now() < until_; n++, posted++) {
      const due = started + (n * 1000) / rate
      if (due > Date.now()) await sleep(due - Date.now())
      const text = `drill ${n}`
      const { body, signature } = signedBody(inboundText(d.line, peers[n % peers.length]!, text), d.appSecret)
      void fetch(`${d.apis[n % 2]!.base}/webhook/incoming`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": signature },
        body,
        signal: AbortSignal.timeout(30_000)
      }).then(async (r) => { await r.text(); inbound.push({ text, status: r.status }) }, (e: Error) => inbound.push({ text, status: 0, error: String((e.cause as Error | undefined)?.message ?? e.message) }))
    }
  })()

  const send = async (s: Send, via: string) => {
    for (let attempt = 0; attempt < 60; attempt++) {
      const reply = await post(`${via}/platform/v1/messages`, { channel_id: d.channelId, to: s.to, type: "text", text: s.text }, {
        "x-api-key": sendKey,
        "idempotency-key": s.key
      }).catch(() => ({ status: 0, body: undefined, text: "" }))
      s.answers.push(reply.status)
      if (reply.status === 200 || reply.status === 201) {
        s.messageId = reply.body?.message_id ?? reply.body?.id
        return
      }
      if (reply.status !== 503 && reply.status !== 0) {
        s.refusal = `${reply.status} ${reply.text.slice(0, 200)}`
        return
      }
      await sleep(500)
    }
  }
  const sending = (async () => {
    const inFlight: Array<Promise<void>> = []
    for (let n = 0; Date.now() < until_; n++) {
      // A recipient of its own per send (the sandbox, as Meta, limits the rate per pair).
      const s: Send = { key: randomUUID(), to: `1555021${String(n % 10_000).padStart(4, "0")}`, text: `drill send ${n}`, answers: [] }
      sends.push(s)
      inFlight.push(send(s, d.apis[n % 2]!.base))
      await sleep(1000 / sendRate)
    }
    await Promise.all(inFlight)
  })()

  for (let i = 1; i <= restarts; i++) {
    await sleep(Math.max(0, started + (i * seconds * 1000) / (restarts + 1) - Date.now()))
    const from = Date.now()
    // Not execSync: the drill's own loop (its load, its receiver, its probe) must go on meanwhile.
    await promisify(exec)(restartCmd)
    outages.push({ from, to: Date.now() })
    console.log(`restart ${i}: ${restartCmd} took ${Date.now() - from} ms`)
  }
  await Promise.all([drive, sending])
  await until(() => inbound.length >= posted, 60_000, "every inbound POST answered")
  running = false
  await probe

  const acknowledged = inbound.filter((m) => m.status >= 200 && m.status < 300)
  await until(() => {
    const delivered = new Set(d.receiver.deliveries.map((x) => x.text))
    return acknowledged.every((m) => delivered.has(m.text))
  }, 120_000, "every acknowledged message delivered").catch((e) => console.log(String(e)))
  const delivered = new Set(d.receiver.deliveries.map((x) => x.text))
  const byEvent = new Map<string, number>()
  for (const x of d.receiver.deliveries) byEvent.set(x.eventId, (byEvent.get(x.eventId) ?? 0) + 1)
  const db = new pg.Client({ host: d.db.host, port: d.db.port, user: d.db.user, database: d.db.database })
  await db.connect()
  teardown.push(() => db.end())
  const rows = await db.query<{ text: string; n: string }>(
    "select text, count(*)::int8 as n from messages where direction = 'outbound' group by text"
  )
  const rowsByText = new Map(rows.rows.map((r) => [r.text, Number(r.n)]))
  const deliveryStates = await db.query<{ status: string; n: string }>(
    "select status || ' ' || coalesce(response_status::text, '-') || ' ' || coalesce(left(response_body_snippet, 60), '') as status, count(*)::int8 as n from webhook_deliveries group by 1 order by 1"
  )
  const inboundRows = await db.query<{ dup: string }>(
    "select count(*)::int8 as dup from (select 1 from messages where direction = 'inbound' group by platform_channel_id, meta_message_id having count(*) > 1) x"
  )

  // /readyz: 503 (or no answer) from each restart's start until it answered 200 again.
  const readyFigures = outages.map((o) => {
    const after = readyz.filter((r) => r.at >= o.from)
    const down = after.find((r) => r.status !== 200)
    const back = after.find((r) => r.at >= o.to && r.status === 200 && (down === undefined || r.at > down.at))
    return { downFor: down && back ? back.at - down.at : undefined, backAfterRestart: back ? back.at - o.to : undefined }
  })
  const statusCounts = (xs: ReadonlyArray<number | string>) =>
    Object.entries(xs.reduce<Record<string, number>>((c, s) => ({ ...c, [s]: (c[s] ?? 0) + 1 }), {}))
      .map(([s, n]) => `${s}: ${n}`).join(", ")
  const alive = processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null)
  const report = {
    processes_alive: `${alive.length} of ${processes.length}`,
    inbound_posted: inbound.length,
    inbound_answers: statusCounts(inbound.map((m) => m.status)),
    inbound_unanswered: statusCounts(inbound.flatMap((m) => m.error === undefined ? [] : [m.error])),
    acknowledged: acknowledged.length,
    acknowledged_lost: acknowledged.filter((m) => !delivered.has(m.text)).length,
    duplicate_inbound_rows: Number(inboundRows.rows[0]!.dup),
    deliveries_received: d.receiver.deliveries.length,
    delivery_rows: deliveryStates.rows.map((r) => `${r.status}: ${r.n}`).join(", "),
    deliveries_repeated: [...byEvent.values()].filter((n) => n > 1).length,
    sends: sends.length,
    send_answers: statusCounts(sends.flatMap((s) => s.answers)),
    sends_ending_2xx: sends.filter((s) => s.messageId !== undefined).length,
    sends_with_5xx_other_than_503: sends.filter((s) => s.answers.some((a) => a >= 500 && a !== 503)).length,
    send_refusals: statusCounts(sends.flatMap((s) => s.refusal === undefined ? [] : [s.refusal])),
    double_sends: sends.filter((s) => (rowsByText.get(s.text) ?? 0) > 1).length,
    sends_2xx_without_row: sends.filter((s) => s.messageId !== undefined && !rowsByText.has(s.text)).length,
    drill_event_loop_delay_ms: { p99: Math.round(lag.percentile(99) / 1e6), max: Math.round(lag.max / 1e6) },
    readyz_probes: statusCounts(readyz.map((r) => r.status)),
    readyz: readyFigures.map((r, i) => `restart ${i + 1}: 503 for ${r.downFor ?? "?"} ms, 200 again ${r.backAfterRestart ?? "?"} ms after the restart command returned`)
  }
  console.log(JSON.stringify(report, null, 2))
  const logs = process.env.DRILL_LOGS ?? "/tmp/drill-logs"
  mkdirSync(logs, { recursive: true })
  for (const p of processes) writeFileSync(`${logs}/${p.name}.log`, p.output())
  console.log(`process logs in ${logs}`)
  const logLines = processes.map((p) => `${p.name}: ${p.output().split("\n").filter((l) => /"level":"(ERROR|FATAL)"|Unhandled|uncaught/i.test(l)).length} error lines`)
  console.log(logLines.join("\n"))
  return alive.length === processes.length && report.acknowledged_lost === 0 && report.double_sends === 0
}

main()
  .then(async (ok) => {
    for (const undo of teardown.reverse()) await undo().catch(() => undefined)
    process.exit(ok ? 0 : 1)
  }, async (e) => {
    console.error(e)
    for (const undo of teardown.reverse()) await undo().catch(() => undefined)
    process.exit(1)
  })
