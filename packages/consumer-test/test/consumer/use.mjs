// An ESM script: the SDK against a loopback server, a webhook signature verified and a tampered body refused.
import { createServer } from "node:http"
import { Platform } from "@platform/sdk"
import { verify } from "@platform/webhook-verify"
import { sign } from "@platform/webhook-verify/testing"

const seen = []
const server = createServer((req, res) => {
  seen.push(`${req.method} ${req.url} ${req.headers["x-api-key"]}`)
  res.writeHead(200, { "content-type": "application/json" })
  res.end(JSON.stringify({ channel_id: 7, message_id: "wamid.esm", type: "text" }))
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const client = new Platform({ apiKey: "pk_esm", baseUrl: `http://127.0.0.1:${server.address().port}` })
const sent = await client.messages.sendText({ channel_id: 7, to: "15551234567", text: "Hello" })
server.close()
const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA=="
const body = JSON.stringify({ event: "message.sent" })
const good = await verify(secret, body, await sign(secret, body))
const bad = await verify(secret, `${body} `, await sign(secret, body))
console.log(JSON.stringify({ sent: sent.message_id, seen, verified: good.ok, tampered: bad.ok }))
