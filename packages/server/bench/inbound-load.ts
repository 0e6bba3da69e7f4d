/**
 * Load generator for `bench:inbound`, run in its own process: POSTs signed Meta
 * webhooks (one text message each, a fresh wamid per request, Meta's escaped
 * ASCII form) at a fixed overall rate, and prints autocannon's JSON summary.
 * argv: url secret phone_number_id rate(0 = unlimited) seconds connections
 */
import autocannon from "autocannon"
import { createHmac, randomBytes } from "node:crypto"

const [url, secret, phoneNumberId, rate, seconds, connections] = process.argv.slice(2) as [
  string, string, string, string, string, string
]
const prefix = randomBytes(4).toString("hex")
let seq = 0

const body = () => {
  const id = `wamid.HBgLMTU1NTAxMjM0NTYVAgASGBQz${prefix}${(++seq).toString(16).padStart(8, "0")}`
  const from = `55119${String(seq % 5000).padStart(8, "0")}`
  const ts = Math.floor(Date.now() / 1000)
  return `{"object":"whatsapp_business_account","entry":[{"id":"900800700","changes":[{"value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":"${phoneNumberId}"},"contacts":[{"profile":{"name":"Jos\\u00e9 \\ud83d\\ude00"},"wa_id":"${from}"}],"messages":[{"from":"${from}","id":"${id}","timestamp":"${ts}","text":{"body":"Ol\\u00e1! Pedido #${seq} \\u2014 https:\\/\\/example.com\\/p"},"type":"text"}]},"field":"messages"}]}]}`
}

const instance = autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  ...(Number(rate) > 0 ? { overallRate: Number(rate) } : {}),
  requests: [{
    method: "POST",
    setupRequest: (request) => {
      const b = body()
      return {
        ...request,
        body: b,
        headers: {
          "content-type": "application/json",
          "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(b).digest("hex")}`
        }
      }
    }
  }]
}, (error, result) => {
  if (error) {
    console.error(error)
    process.exit(1)
  }
  process.stdout.write(JSON.stringify({
    rps: result.requests.total / (result.duration || Number(seconds)),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total
  }))
})
void instance
