/**
 * The benchmark's echo receiver, in its own process: answers every POST 200 and
 * remembers when each X-Platform-Event-Id arrived (GET /receipts hands them over
 * and forgets them; GET /count?at_least=N answers how many it holds once that is N
 * or more). Prints its port on stdout once listening.
 */
import { createServer, type ServerResponse } from "node:http"

let receipts: Array<[string, number]> = []
/** Count requests waiting for their number of receipts, answered as receipts arrive. */
let waiting: Array<{ readonly atLeast: number; readonly res: ServerResponse }> = []

const answerCount = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/plain" })
  res.end(String(receipts.length))
}

const server = createServer((req, res) => {
  // The POSTs being measured skip this: only the bench's own GETs parse their URL.
  const url = req.method === "GET" ? new URL(req.url ?? "/", "http://receiver") : undefined
  if (url?.pathname === "/count") {
    const atLeast = Number(url.searchParams.get("at_least") ?? 0)
    if (receipts.length >= atLeast) answerCount(res)
    else waiting.push({ atLeast, res })
    return
  }
  if (url?.pathname === "/receipts") {
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
    if (waiting.length > 0) {
      const due = waiting.filter((w) => receipts.length >= w.atLeast)
      waiting = waiting.filter((w) => receipts.length < w.atLeast)
      for (const w of due) answerCount(w.res)
    }
    res.writeHead(200, { "content-type": "text/plain" })
    res.end("ok")
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`)
})
