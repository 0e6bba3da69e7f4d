/**
 * The limit for `bench:send`: a bare node:http handler that looks the API key up
 * (SHA-256 of the header, one SELECT on api_keys the first time, then a Map), makes
 * the same upstream request the platform makes for a text send (POST
 * `/{version}/{phone_number_id}/messages` with the channel's token, over a keep-alive
 * agent, to the same simulator) and does ONE INSERT of the message row before it
 * answers. It reports its upstream call in `Server-Timing: upstream;dur=` as the
 * platform does, so the two are measured alike.
 * argv: port databaseUrl graphBase(…/v23.0) channels(JSON {channel_id: [phone_number_id, token]})
 */
import { createHash } from "node:crypto"
import { Agent, createServer, request as httpRequest } from "node:http"
import pg from "pg"

const [port, databaseUrl, graphBase, channelsJson] = process.argv.slice(2) as [string, string, string, string]
const channels = new Map(Object.entries(JSON.parse(channelsJson) as Record<string, [string, string]>).map(([id, c]) => [Number(id), c]))
// As many connections as the server's API pool.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
// An idle connection that fails is dropped by the pool; without a listener its 'error' would end the process.
pool.on("error", () => {})
const agent = new Agent({ keepAlive: true, maxSockets: 256 })
const graph = new URL(graphBase)

await pool.query(`create table if not exists bare_sent (id bigint generated always as identity primary key,
  developer_account_id bigint not null, channel_id bigint not null, meta_message_id text unique, peer text not null,
  type text not null, payload jsonb not null, created_at timestamptz not null default now())`)

const keys = new Map<string, Promise<number | null>>()
const accountOf = (plaintext: string) => {
  const hex = createHash("sha256").update(plaintext).digest("hex")
  let found = keys.get(hex)
  if (found === undefined) {
    found = pool.query("select developer_account_id from api_keys where key_hash = $1 and is_active", [Buffer.from(hex, "hex")])
      .then((r) => (r.rows[0]?.developer_account_id as number | undefined) ?? null)
    keys.set(hex, found)
  }
  return found
}

const upstream = (pnid: string, token: string, payload: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest({
      agent,
      host: graph.hostname,
      port: graph.port,
      method: "POST",
      path: `${graph.pathname}/${pnid}/messages`,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(payload)
  })

createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    void (async () => {
      const account = await accountOf(String(req.headers["x-api-key"] ?? ""))
      if (account === null) return res.writeHead(401).end()
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { channel_id: number; to: string; text: string }
      const channel = channels.get(body.channel_id)
      if (channel === undefined || typeof body.to !== "string" || typeof body.text !== "string") return res.writeHead(422).end()
      const payload = JSON.stringify({ messaging_product: "whatsapp", recipient_type: "individual", to: body.to, type: "text", text: { body: body.text } })
      const started = performance.now()
      const answer = await upstream(channel[0], channel[1], payload)
      const upstreamMs = performance.now() - started
      if (answer.status !== 200) return res.writeHead(502).end(answer.body)
      const sent = JSON.parse(answer.body) as { messages: Array<{ id: string }>; contacts?: Array<{ wa_id?: string }> }
      const id = sent.messages[0]!.id
      await pool.query(
        "insert into bare_sent (developer_account_id, channel_id, meta_message_id, peer, type, payload) values ($1, $2, $3, $4, 'text', $5)",
        [account, body.channel_id, id, sent.contacts?.[0]?.wa_id ?? body.to, JSON.stringify({ text: body.text })]
      )
      res.writeHead(200, { "content-type": "application/json", "server-timing": `upstream;dur=${upstreamMs.toFixed(1)}` })
        .end(JSON.stringify({ channel_id: body.channel_id, message_id: id, type: "text" }))
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end()
    })
  })
}).listen(Number(port), "127.0.0.1", () => console.error(`bare send proxy on ${port}`))
