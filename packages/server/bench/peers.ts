/**
 * The peers bench:delivery measures the engine against, in the same sitting and against
 * the same echo receiver: what a team could pick instead of the delivery engine.
 *
 *   BullMQ  a Queue and a Worker (concurrency 50) on the machine's Redis
 *           (BENCH_REDIS_URL, default redis://127.0.0.1:6379), a queue of its own per run;
 *           a job POSTs its event, HMAC-signed, to the echo receiver.
 *   loop    a minimal Postgres SKIP LOCKED loop on a scratch table of the scratch database:
 *           4 claimers, each `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED
 *           LIMIT n) RETURNING`, every POST of its batch at once, then ONE batched UPDATE
 *           (unnest) of the results.
 *
 * Both deliver `events` events written in batches of 500, as the event writer writes them
 * for D, and are timed from the first write to the receiver holding them all.
 * Neither fans out, keeps per-conversation order, signs with rotating keys, nor keeps
 * records beyond a status: what the engine does on top of them.
 */
import { Queue, Worker } from "bullmq"
import { createHmac, randomBytes } from "node:crypto"
import pg from "pg"
import { Agent, request } from "undici"
import { newEventId } from "../src/outbox/events.js"
import { benchEnvelope } from "./bench-event.js"

const SECRET = "peer-secret"
const BATCH = 500
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379"

/** Waits until the receiver holds at least `n` receipts (bench/delivery.ts: `arrived`). */
export type Arrived = (n: number) => Promise<number>

/** A POST of one event, signed as webhook receivers verify it (Standard Webhooks: id.timestamp.body). */
const poster = () => {
  const agent = new Agent({ connections: 128, pipelining: 1, keepAliveTimeout: 60_000 })
  const post = async (url: string, id: string, body: string) => {
    const ts = Math.floor(Date.now() / 1000)
    const signature = createHmac("sha256", SECRET).update(`${id}.${ts}.${body}`).digest("base64")
    const res = await request(url, {
      method: "POST",
      dispatcher: agent,
      body,
      headers: {
        "content-type": "application/json",
        "x-platform-event-id": id,
        "webhook-id": id,
        "webhook-timestamp": String(ts),
        "webhook-signature": `v1,${signature}`
      }
    })
    await res.body.dump()
    return res.statusCode
  }
  return { post, close: () => agent.close() }
}

/** The events of one run: envelopes as the event writer stores them. */
const events = function*(n: number) {
  const occurred = new Date().toISOString()
  for (let i = 0; i < n; i++) {
    const id = newEventId()
    yield { id, body: JSON.stringify(benchEnvelope(i, id, null, 1, 1, occurred)) }
  }
}

/** BullMQ: events/s delivered, `n` jobs added in bulks of 500 while one Worker (concurrency 50) runs. */
export const bullmqRun = async (url: string, n: number, arrived: Arrived): Promise<number> => {
  const name = `bench-delivery-${randomBytes(4).toString("hex")}`
  const connection = { url: REDIS_URL, maxRetriesPerRequest: null }
  const queue = new Queue(name, { connection })
  const { post, close } = poster()
  const worker = new Worker<{ id: string; body: string }>(
    name,
    async (job) => {
      const status = await post(url, job.data.id, job.data.body)
      if (status < 200 || status >= 300) throw new Error(`HTTP ${status}`)
    },
    { connection, concurrency: 50, autorun: false }
  )
  try {
    await worker.waitUntilReady()
    void worker.run()
    const all = [...events(n)]
    const started = Date.now()
    for (let i = 0; i < n; i += BATCH) {
      await queue.addBulk(all.slice(i, i + BATCH).map((data) => ({
        name: "deliver",
        data,
        opts: { removeOnComplete: true, removeOnFail: 1000, attempts: 8, backoff: { type: "exponential", delay: 1000 } }
      })))
    }
    await arrived(n)
    // Then until every job is completed (as D waits for every delivery recorded).
    for (;;) {
      const counts = await queue.getJobCounts("active", "wait", "delayed", "prioritized")
      if (Object.values(counts).every((c) => c === 0)) break
      await new Promise((r) => setTimeout(r, 2))
    }
    return n / ((Date.now() - started) / 1000)
  } finally {
    await worker.close()
    await queue.obliterate({ force: true }).catch(() => undefined)
    await queue.close()
    await close()
  }
}

const LOOP_TABLE = `
  create table if not exists peer_jobs (
    id bigint generated always as identity primary key,
    event_id text not null,
    body text not null,
    status text not null default 'pending',
    attempts int not null default 0,
    locked_at timestamptz,
    response_status int,
    done_at timestamptz
  );
  create index if not exists peer_jobs_pending_idx on peer_jobs (id) where status = 'pending';
  truncate peer_jobs`

/** The minimal SKIP LOCKED loop: events/s delivered, `claimers` loops claiming `batch` rows each. */
export const skipLockedRun = async (
  databaseUrl: string,
  url: string,
  n: number,
  arrived: Arrived,
  claimers = 4,
  batch = 50
): Promise<number> => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: claimers + 1 })
  pool.on("error", () => {})
  await pool.query(LOOP_TABLE)
  const { post, close } = poster()
  let done = false
  let recorded = 0
  const claimer = async () => {
    while (!done) await claimOnce().catch(() => new Promise((r) => setTimeout(r, 50)))
  }
  /** One claim, its POSTs and their record (a failed statement is tried again by `claimer`). */
  const claimOnce = async () => {
    const { rows } = await pool.query<{ id: string; event_id: string; body: string }>(
      `update peer_jobs set status = 'running', locked_at = now(), attempts = attempts + 1
       where id in (select id from peer_jobs where status = 'pending' order by id for update skip locked limit $1)
       returning id, event_id, body`,
      [batch]
    )
    if (rows.length === 0) return new Promise((r) => setTimeout(r, 5))
    const statuses = await Promise.all(rows.map((r) => post(url, r.event_id, r.body).catch(() => 0)))
    // The record is tried until it lands (a busy server may refuse a connection for a while).
    for (;;) {
      try {
        await pool.query(
          `update peer_jobs j set status = case when r.status between 200 and 299 then 'done' else 'pending' end,
                  response_status = r.status, done_at = now()
           from unnest($1::bigint[], $2::int[]) as r(id, status) where j.id = r.id`,
          [rows.map((r) => r.id), statuses]
        )
        break
      } catch {
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    recorded += statuses.filter((s) => s >= 200 && s < 300).length
  }
  try {
    const all = [...events(n)]
    const loops = Array.from({ length: claimers }, claimer)
    const started = Date.now()
    for (let i = 0; i < n; i += BATCH) {
      const chunk = all.slice(i, i + BATCH)
      await pool.query(
        `insert into peer_jobs (event_id, body) select * from unnest($1::text[], $2::text[])`,
        [chunk.map((e) => e.id), chunk.map((e) => e.body)]
      )
    }
    await arrived(n)
    // Then until every result is recorded (as D waits for every delivery recorded).
    while (recorded < n) await new Promise((r) => setTimeout(r, 2))
    const rate = n / ((Date.now() - started) / 1000)
    done = true
    await Promise.all(loops)
    return rate
  } finally {
    done = true
    await close()
    await pool.end()
  }
}
