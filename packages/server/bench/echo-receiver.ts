/**
 * The benchmark's echo receiver, in its own process: answers every POST 200 and
 * remembers when each X-Platform-Event-Id arrived (GET /receipts hands them over
 * and forgets them; GET /count tells how many it holds). Prints its port on
 * stdout once listening.
 */
import { createServer } from "node:http"

let receipts: Array<[string, number]> = []
const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/count") {
    res.writeHead(200, { "content-type": "text/plain" })
    res.end(String(receipts.length))
    return
  }
  if (req.method === "GET" && req.url === "/receipts") {
    const body = JSON.stringify(receipts)
    receipts = []
    res.writeHead(200, { "content-type": "application/json" })
    res.end(body)
    return
  }
  const id = req.headers["x-platform-event-id"]
  req.on("data", () => {})
  req.on("end", () => {
    if (typeof id === "string") receipts.push([id, Date.now()])
    res.writeHead(200, { "content-type": "text/plain" })
    res.end("ok")
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`)
})
