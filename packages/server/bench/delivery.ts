/**
 * `npm run bench:delivery`: the normalized delivery engine end to end on real
 * Postgres, against an echo receiver in a separate process.
 *
 *   E    requests/s the engine's HTTP client (DeliveryTransport.send, as the dispatcher calls it)
 *        reaches against the echo receiver alone, sending the request D sends for an event
 *        (its headers, signatures and envelope), built once
 *   E1   the same with the lighter request E was measured with before (2 headers), printed for comparison
 *   D    events/s delivered end to end, unordered, one subscription: event rows inserted (and
 *        announced after commit) -> fan-out -> claimed -> signed -> POSTed -> recorded
 *   p50/p99  event commit -> receipt at the receiver, at 50 % of D
 *   O    the same as D with message events spread over 1,000 conversations (per-peer order)
 *
 *   B    BullMQ (concurrency 50, the machine's Redis) delivering the same events to the same receiver (peers.ts)
 *   L    a minimal Postgres SKIP LOCKED loop (4 claimers, batched UPDATE of results) doing the same (peers.ts)
 *
 * Goals (issue 43): D >= 1.6 x B, D >= 1.3 x L, p50 <= 10 ms and p99 <= 50 ms at 50 % of D,
 * O >= 0.9 x D, the engine's peak RSS <= 400 MB; earlier: D/E >= 0.4, D >= 2,000 ev/s. E, D, O, B
 * and L are measured in BENCH_ROUNDS (3) rounds of E1, E, D, O, B then L; each figure is the
 * median over the rounds, each ratio the median of the rounds' own ratios (every round is printed).
 * The engine's peak RSS is this process's VmHWM over the E, D, O and latency phases (reset
 * before each: the peers run in this process too, and their memory is not the engine's). The
 * npm script bundles this file with esbuild and runs it with plain node, as the server's build
 * runs: through tsx, the loader's own memory raised that peak by about 90 MB (516 -> 430 MB).
 * Env: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is
 * created beside it and dropped), BENCH_EVENTS (20000), BENCH_SECONDS (10, latency phase),
 * BENCH_REDIS_URL (redis://127.0.0.1:6379), BENCH_PEERS=0 (no peers);
 * diagnostics: BENCH_STAGES=1 (latency by stage; CPU per event by process and WAL bytes per event; the share of
 * the time this process's main thread ran and waited for a CPU), BENCH_SQL_STATS=1 (pg_stat_statements of the
 * D and O runs), BENCH_CPU_PROFILE=<file> (this process's CPU profiles of the E, D and O runs:
 * <file>.E.cpuprofile, <file>.D.cpuprofile, ...) and BENCH_HEAP_PROFILE=<file> (its allocation
 * profiles of the D and O runs: <file>.D.heapprofile, ...),
 * BENCH_E_SAFEFETCH=1 (also E0: safeFetch from Effect fibers with E1's request, how E was first measured).
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { Agent, get as httpGet } from "node:http"
import { AppConfig } from "../src/config.js"
import { Secrets } from "../src/crypto/secrets.js"
import { migrate, parseDatabaseUrl, pgLayer } from "../src/db/client.js"
import { closeSafeHttpPools } from "../src/net/pinned-pools.js"
import { safeFetch } from "../src/net/safe-fetch.js"
import { makeRequests } from "../src/delivery/requests.js"
import { newSubscriptionSecret, signingKeys } from "../src/delivery/signer.js"
import { DeliveryTransport } from "../src/delivery/transport.js"
import { newEventId } from "../src/outbox/events.js"
import { DeliveryEngineLive, deliveryWorkers } from "../src/delivery/delivery-workers.js"
import { benchEnvelope } from "./bench-event.js"
import { admin, databaseUrl, startReceiver, startWriter } from "./delivery-processes.js"
import {
  cpuOf, machineCpu, mainThread, profilePath, startHeapProfile, startProfile, stopHeapProfile, stopProfile, threadShares
} from "./delivery-probes.js"
import { type BenchRequest, fmt, report, shape } from "./delivery-report.js"
import { bullmqRun, skipLockedRun } from "./peers.js"
import { peakRssMb, resetPeakRss } from "./rss.js"
import { median, percentile, query } from "./support.js"

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000)
const LATENCY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const CONVERSATIONS = 1000

const main = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const secrets = yield* Secrets
  const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.sync(r.stop))
  const receipts = Effect.promise(async () =>
    (await (await fetch(`${receiver.url}/receipts`)).json()) as Array<[string, number]>
  )

  // (a) E: the engine's HTTP client alone against the echo receiver, called as the
  // dispatcher calls it (DeliveryTransport.send: SSRF-checked target, pinned pool), with
  // the request D sends for an event: the dispatcher's own headers and signatures
  // (requests.ts) over an envelope the event writer would store, built once.
  const transport = yield* DeliveryTransport
  const eventId = newEventId()
  const delivery: BenchRequest = makeRequests(sql, secrets).request(
    {
      id: 100_000, subscription_id: 1, event_id: eventId, event_type: "message.sent", conversation_peer: null, attempts: 0,
      envelope: JSON.stringify(benchEnvelope(0, eventId, null, 1, 1, new Date().toISOString())), sub_version: 0
    },
    { version: 0, url: `${receiver.url}/hook`, previousUntil: 0, keys: signingKeys(newSubscriptionSecret(), null), headers: {} },
    Date.now()
  )
  // E1: the request E was measured with before, lighter than any delivery (2 of a
  // delivery's headers): printed beside E, for comparison with earlier figures.
  const light: BenchRequest = {
    body: Buffer.from(JSON.stringify({ id: newEventId(), event: "message.sent", data: { text: "x".repeat(200) } })),
    headers: { "content-type": "application/json", "x-platform-signature": "sha256=00" }
  }
  const measureE = (ms: number, name = "E", { body, headers }: BenchRequest = delivery) => Effect.gen(function*() {
    let count = 0
    const until = Date.now() + ms
    const worker = async () => {
      while (Date.now() < until) {
        const outcome = await transport.send(`${receiver.url}/hook`, headers, body)
        if (outcome._tag !== "Answered") throw new Error(outcome.reason)
        count++
      }
    }
    const started = Date.now()
    const cpu = async () => [await cpuOf(process.pid), await cpuOf(receiver.pid), await machineCpu()]
    const before = yield* Effect.promise(cpu)
    const threadBefore = yield* Effect.promise(mainThread)
    yield* Effect.promise(() => Promise.all(Array.from({ length: 128 }, worker)))
    const threadAfter = yield* Effect.promise(mainThread)
    const after = yield* Effect.promise(cpu)
    yield* receipts
    if (process.env.BENCH_STAGES) {
      const perRequest = (i: number) => `${Math.round(((after[i]! - before[i]!) / count) * 1e6)} µs`
      console.log(`CPU per request during ${name}:`, { bench: perRequest(0), receiver: perRequest(1), machine: perRequest(2) })
      console.log(`main thread during ${name}:`, threadShares(threadBefore, threadAfter))
    }
    return count / ((Date.now() - started) / 1000)
  })
  // E as this bench measured it before the dispatcher called DeliveryTransport.send:
  // safeFetch from 128 Effect fibers (a heavier call path than the engine's now).
  const measureSafeFetch = (ms: number) => Effect.gen(function*() {
    let count = 0
    const until = Date.now() + ms
    const worker = Effect.gen(function*() {
      while (Date.now() < until) {
        yield* safeFetch(`${receiver.url}/hook`, { method: "POST", headers: light.headers, body: light.body, allowLocal: true })
          .pipe(Effect.orDie)
        count++
      }
    })
    const started = Date.now()
    yield* Effect.all(Array.from({ length: 128 }, () => worker), { concurrency: "unbounded" })
    yield* receipts
    return count / ((Date.now() - started) / 1000)
  })
  yield* measureE(2000, "E (warm-up)")
  const E0 = process.env.BENCH_E_SAFEFETCH ? yield* measureSafeFetch(5000) : undefined

  const [account] = yield* sql<{ id: number }>`insert into developer_accounts (name) values ('bench') returning id`
  const [channel] = yield* sql<{ id: number }>`insert into platform_channels (developer_account_id, type, name, phone_number_id)
    values (${account!.id}, 'chat', 'bench', 'bench-pn') returning id`
  yield* sql`insert into webhook_subscriptions (developer_account_id, target_url, secret_encrypted)
    values (${account!.id}, ${`${receiver.url}/hook`}, ${secrets.encrypt(newSubscriptionSecret())})`

  // Events are written by a process of their own (event-writer.ts), as API processes write
  // them in production: this one runs the engine only.
  const [{ db }] = (yield* sql<{ db: string }>`select current_database() as db`) as unknown as [{ db: string }]
  const writer = yield* Effect.acquireRelease(
    Effect.promise(() => startWriter(db, account!.id, channel!.id)),
    (w) => Effect.sync(w.stop)
  )
  const insertEvents = (n: number, offset: number, conversations: number | null, ids = false) =>
    Effect.promise(() => writer.write({ n, offset, conversations, ids }))

  const delivered = sql<{ n: number }>`select count(*)::int as n from webhook_deliveries where status = 'delivered'`.pipe(
    Effect.map(([r]) => r!.n)
  )
  // While the engine runs, one request asks the receiver to answer once `n` POSTs have
  // arrived (a count of delivered rows scans the whole table: polled every 20 ms it took
  // most of a core of Postgres away from the engine; polling the receiver every 20 ms
  // read the end up to 20 ms late).
  // node:http on a kept-alive socket: the global fetch cost the engine's process more.
  const countAgent = new Agent({ keepAlive: true, maxSockets: 1 })
  const arrived = (n: number) => Effect.promise(() =>
    new Promise<number>((resolve, reject) => {
      httpGet(`${receiver.url}/count?at_least=${n}`, { agent: countAgent }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => resolve(Number(text)))
      }).on("error", reject)
    })
  )
  // Then, until no row is left pending or delivering (two small partial indexes; polled
  // every 2 ms, for the few ms the last records take), and only after the clock is
  // read, the delivered count, which scans every row.
  const open = sql<{ n: number }>`select (select count(*) from webhook_deliveries where status = 'pending')
      + (select count(*) from webhook_deliveries where status = 'delivering') as n`.pipe(Effect.map(([r]) => Number(r!.n)))
  /** Waits until `expected` more deliveries are recorded as delivered; returns when that was seen. */
  const settle = (before: number, expected: number) =>
    Effect.gen(function*() {
      yield* arrived(expected)
      while ((yield* open) > 0) yield* Effect.sleep(Duration.millis(2))
      const done = Date.now()
      const recorded = (yield* delivered) - before
      if (recorded !== expected) return yield* Effect.dieMessage(`${recorded} of ${expected} deliveries recorded`)
      return done
    })

  const throughput = (conversations: number | null) =>
    Effect.gen(function*() {
      const before = yield* delivered
      const started = Date.now()
      for (let i = 0; i < EVENTS; i += 500) yield* insertEvents(Math.min(500, EVENTS - i), i, conversations)
      const done = yield* settle(before, EVENTS)
      const rate = EVENTS / ((done - started) / 1000)
      yield* receipts
      return rate
    })

  // Where the CPU goes, per event: this process, the receiver, the Postgres backends of
  // the scratch database (other engineers' load on the machine shows in "machine" only).
  // Backends are listed before and after a run: one opened meanwhile counts from zero.
  const backends = sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.pipe(
    Effect.map((rows) => rows.map((r) => r.pid))
  )
  const cpuNow = (pids: ReadonlyArray<number>) =>
    Effect.promise(async () => {
      const postgres: Record<number, number> = {}
      for (const pid of pids) postgres[pid] = await cpuOf(pid)
      return {
        bench: await cpuOf(process.pid),
        writer: await cpuOf(writer.pid),
        receiver: await cpuOf(receiver.pid),
        postgres,
        machine: await machineCpu()
      }
    })
  /** A throughput run with the diagnostics asked for in the environment. */
  const diagnosed = <E>(name: string, run: Effect.Effect<number, E>) =>
    Effect.gen(function*() {
      if (process.env.BENCH_SQL_STATS) yield* sql`select pg_stat_statements_reset()`
      const profile = profilePath(process.env.BENCH_CPU_PROFILE, "cpuprofile", name)
      if (profile) yield* Effect.promise(() => startProfile())
      const heapProfile = profilePath(process.env.BENCH_HEAP_PROFILE, "heapprofile", name)
      if (heapProfile) yield* Effect.promise(startHeapProfile)
      // WAL written meanwhile (the whole server's: a quiet machine's is the run's), a figure the
      // machine's speed does not move.
      const walNow = sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.pipe(Effect.map(([r]) => r!.lsn))
      const walBefore = yield* walNow
      const pidsBefore = yield* backends
      const before = yield* cpuNow(pidsBefore)
      const threadBefore = yield* Effect.promise(mainThread)
      const rate = yield* run
      const threadAfter = yield* Effect.promise(mainThread)
      const after = yield* cpuNow([...new Set([...pidsBefore, ...(yield* backends)])])
      const walAfter = yield* walNow
      if (profile) yield* Effect.promise(() => stopProfile(profile))
      if (heapProfile) yield* Effect.promise(() => stopHeapProfile(heapProfile))
      if (process.env.BENCH_STAGES) {
        const perEvent = (used: number) => `${Math.round((used / EVENTS) * 1e6)} µs`
        let postgres = 0
        for (const [pid, used] of Object.entries(after.postgres)) {
          if (used > 0) postgres += used - (before.postgres[Number(pid)] ?? 0) // 0: gone meanwhile
        }
        const [wal] = yield* sql<{ bytes: string }>`
          select pg_wal_lsn_diff(${walAfter}::pg_lsn, ${walBefore}::pg_lsn)::text as bytes`
        const walBytes = Number(wal!.bytes)
        console.log(`CPU per event during ${name}:`, {
          engine: perEvent(after.bench - before.bench),
          writer: perEvent(after.writer - before.writer),
          receiver: perEvent(after.receiver - before.receiver),
          postgres: perEvent(postgres),
          machine: perEvent(after.machine - before.machine),
          wal: `${Math.round(walBytes / EVENTS)} bytes`
        })
        console.log(`engine main thread during ${name}:`, threadShares(threadBefore, threadAfter))
      }
      if (process.env.BENCH_SQL_STATS) {
        const statements = yield* sql<Record<string, unknown>>`
          select calls, plans, round(total_plan_time::numeric, 1) as plan_ms, round(total_exec_time::numeric, 1) as ms,
                 rows,
                 shared_blks_hit as hit, shared_blks_read as read, wal_records,
                 left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 80) as query
          from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
          order by total_exec_time desc limit 12`
        console.log(`statements during ${name} (${EVENTS} events)`)
        console.table(statements)
      }
      return rate
    }).pipe(Effect.orDie)

  // E, D (b: unordered, no conversation peer, one subscription) and O (d: message events
  // over 1,000 conversations) are measured in ROUNDS back-to-back rounds, and each ratio
  // is the median of the rounds' own ratios: the speed of a shared machine drifts over
  // minutes, and a ratio of figures measured a minute apart would measure the drift.
  // The peers (peers.ts) deliver the same events to the same receiver, timed the same way
  // (first write to the receiver holding them all and, for the loop, every result recorded).
  const scratchUrl = new URL(databaseUrl)
  scratchUrl.pathname = `/${db}`
  const arrivedNow = (n: number) => Effect.runPromise(arrived(n))
  const peer = (run: () => Promise<number>) =>
    Effect.gen(function*() {
      const rate = yield* Effect.tryPromise(run).pipe(
        Effect.catchAll((error) => Effect.as(Effect.logWarning(`peer not measured: ${String(error.error)}`), NaN))
      )
      yield* receipts
      return rate
    })
  const peers = process.env.BENCH_PEERS !== "0"
  // The engine's peak memory: this process's, over the engine's phases only.
  let enginePeak = 0
  const enginePhase = <A, E>(phase: Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      resetPeakRss()
      const a = yield* phase
      enginePeak = Math.max(enginePeak, peakRssMb())
      console.error(`peak RSS of the phase ${Math.round(peakRssMb())} MB, heap used ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB`)
      return a
    })

  yield* enginePhase(throughput(null)) // warm-up
  const rounds: Array<{ E: number; E1: number; D: number; O: number; B: number; L: number }> = []
  for (let round = 1; round <= ROUNDS; round++) {
    const suffix = ROUNDS > 1 ? `${round}` : ""
    const { D, E, E1, O } = yield* enginePhase(Effect.gen(function*() {
      // E1 first: E, the figure of the goal, is measured right before D.
      const E1 = yield* measureE(5000, `E1${suffix}`, light)
      const eProfile = profilePath(process.env.BENCH_CPU_PROFILE, "cpuprofile", `E${suffix}`)
      if (eProfile) yield* Effect.promise(() => startProfile())
      const E = yield* measureE(5000, `E${suffix}`)
      if (eProfile) yield* Effect.promise(() => stopProfile(eProfile))
      const D = yield* diagnosed(`D${suffix}`, throughput(null))
      const O = yield* diagnosed(`O${suffix}`, throughput(CONVERSATIONS))
      return { D, E, E1, O }
    }))
    const B = peers ? yield* peer(() => bullmqRun(`${receiver.url}/hook`, EVENTS, arrivedNow)) : NaN
    const L = peers ? yield* peer(() => skipLockedRun(scratchUrl.href, `${receiver.url}/hook`, EVENTS, arrivedNow)) : NaN
    rounds.push({ E, E1, D, O, B, L })
    console.error(`round ${round}: D ${fmt(D)}, O ${fmt(O)}, BullMQ ${fmt(B)}, loop ${fmt(L)} ev/s`)
  }
  const D = median(rounds.map((r) => r.D))

  // (c) latency at 50 % of D: small batches every 10 ms, commit -> receipt.
  const rate = D / 2
  resetPeakRss()
  const committed = new Map<string, number>()
  const before = yield* delivered
  const ticks = LATENCY_SECONDS * 100
  let carry = 0
  let sent = 0
  const start = Date.now()
  for (let t = 0; t < ticks; t++) {
    carry += rate / 100
    const n = Math.floor(carry)
    carry -= n
    if (n > 0) {
      const { ids, committedAt } = yield* insertEvents(n, sent, null, true)
      for (const id of ids!) committed.set(id, committedAt)
      sent += n
    }
    const wait = start + (t + 1) * 10 - Date.now()
    if (wait > 0) yield* Effect.sleep(Duration.millis(wait))
  }
  yield* settle(before, sent)
  enginePeak = Math.max(enginePeak, peakRssMb())
  const latencies = (yield* receipts).filter(([id]) => committed.has(id)).map(([id, at]) => at - committed.get(id)!)
    .sort((a, b) => a - b)

  const [stages] = yield* sql<Record<string, number>>`
    select percentile_cont(0.5) within group (order by extract(epoch from d.created_at - e.occurred_at) * 1000) as fanout_p50,
           percentile_cont(0.99) within group (order by extract(epoch from d.created_at - e.occurred_at) * 1000) as fanout_p99,
           percentile_cont(0.5) within group (order by extract(epoch from d.delivered_at - d.created_at) * 1000 - d.latency_ms) as claim_p50,
           percentile_cont(0.99) within group (order by extract(epoch from d.delivered_at - d.created_at) * 1000 - d.latency_ms) as claim_p99,
           percentile_cont(0.5) within group (order by d.latency_ms) as post_p50,
           percentile_cont(0.99) within group (order by d.latency_ms) as post_p99
    from webhook_deliveries d join events e on e.event_id = d.event_id
    where d.event_id = any(${[...committed.keys()]}::text[])`
  if (process.env.BENCH_STAGES) console.log("stages (ms)", stages)

  console.log(report({
    rounds, E0, rate, latencies: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99),
    enginePeakMb: enginePeak, events: EVENTS, conversations: CONVERSATIONS, delivery: shape(delivery), light: shape(light)
  }))
})

const program = Effect.gen(function*() {
  const scratch = `bench_delivery_${Date.now().toString(36)}`
  yield* Effect.acquireRelease(
    Effect.promise(() => admin(`create database ${scratch}`)),
    () => Effect.promise(() => admin(`drop database if exists ${scratch} with (force)`).catch(() => undefined))
  )
  const connection = { ...parseDatabaseUrl(databaseUrl), database: scratch }
  if (process.env.BENCH_SQL_STATS) {
    const url = new URL(databaseUrl)
    url.pathname = `/${scratch}`
    yield* Effect.promise(() =>
      query(url.href, `create extension if not exists pg_stat_statements;
        alter database ${scratch} set pg_stat_statements.track_planning = on`)
    )
  }
  const Database = Layer.effectDiscard(migrate).pipe(Layer.provideMerge(pgLayer(connection, 24)))
  const Engine = DeliveryEngineLive.pipe(
    Layer.provideMerge(Database),
    Layer.provideMerge(AppConfig.layerWith({ LOG_LEVEL: "warning" }))
  )
  // The workers' scope closes before the engine's layer: its pools outlive every worker.
  yield* Effect.gen(function*() {
    yield* deliveryWorkers({ dispatchBatch: 100 })
    yield* main
  }).pipe(Effect.scoped, Effect.provide(Engine))
}).pipe(
  Effect.scoped,
  Effect.ensuring(Effect.promise(closeSafeHttpPools)),
  // As the server runs without OTEL_EXPORTER_OTLP_ENDPOINT (tracing.ts, TracingOff): spans nobody reads otherwise.
  Effect.withTracerEnabled(false)
)

Effect.runPromise(program).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
