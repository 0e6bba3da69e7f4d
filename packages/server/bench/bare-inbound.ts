/**
 * The limit for `bench:inbound`: a bare node:http handler that verifies the
 * HMAC over the raw bytes (constant-time) and does ONE durable INSERT.
 * argv: port databaseUrl secret
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"

const [port, databaseUrl, secret] = process.argv.slice(2) as [string, string, string]
const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 })
// An idle connection that fails is dropped by the pool; without a listener its 'error' would end the process.
pool.on("error", () => {})

await pool.query(`create table if not exists bare_inbound (id bigint generated always as identity primary key,
  meta_message_id text unique, body jsonb not null, created_at timestamptz not null default now())`)

createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const raw = Buffer.concat(chunks)
    const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`)
    const given = Buffer.from(String(req.headers["x-hub-signature-256"] ?? ""))
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      res.writeHead(401).end()
      return
    }
    const text = raw.toString("utf8")
    const mid = /"id":"(wamid[^"]+)"/.exec(text)?.[1] ?? null
    pool.query("insert into bare_inbound (meta_message_id, body) values ($1, $2) on conflict do nothing", [mid, text]).then(
      () => {
        res.writeHead(200, { "content-type": "application/json" }).end(`{"status":"ok"}`)
      },
      () => res.writeHead(500).end()
    )
  })
}).listen(Number(port), "127.0.0.1", () => console.error(`bare handler on ${port}`))
