import { afterEach, describe, expect, it } from "vitest"
import { existsSync } from "node:fs"
import { Agent, createServer, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { inboundText, signedBody } from "./fixtures/meta/inbound.js"
import {
  alive,
  descendants,
  freePort,
  removeScratch,
  repositoryRoot,
  run,
  scratchDatabase,
  scratchDir,
  serverEnv,
  stopAll,
  untilAnswer
} from "./support/process.js"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

/** Starts the built server and resolves once it is ready (`/readyz` waits for the first-run demo). */
const startServer = async (env: Record<string, string> = {}) => {
  const { child, exit, output } = run(process.execPath, [main], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", PGLITE_MEMORY: "1", LOG_FORMAT: "json", DATABASE_URL: "", ...env }
  })
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output())
      if (match) resolve(Number(match[1]))
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    void exit.then(({ code }) => reject(new Error(`server exited early with ${code}: ${output()}`)))
  })
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`)
    await res.body?.cancel()
    if (res.status === 200) return { port, child, output }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Signs up `name`@example.com and returns the dashboard session cookie. */
const signupCookie = async (base: string, name: string) => {
  const signup = await fetch(`${base}/platform/dashboard/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}@example.com`, password: `${name} password`, name })
  })
  return signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
}

// A test that fails leaves no server behind.
afterEach(async () => {
  stopAll()
  await removeScratch()
})

describe("process lifecycle", () => {
  it("SIGTERM drains: an open keep-alive connection does not hold the process, exit code 0", async () => {
    expect(existsSync(main), "build the server first (npm run build -w @platform/server)").toBe(true)
    const { port, child, output } = await startServer()
    const agent = new Agent({ keepAlive: true })
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/readyz", agent }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      }).on("error", reject).end()
    })
    expect(status).toBe(200)
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const started = Date.now()
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(output()).toContain("http server drained")
    agent.destroy()
  }, 60_000)

  it("SIGTERM with an event stream open: the stream ends cleanly and the process exits 0 without waiting out the drain", async () => {
    const { port, child, output } = await startServer()
    const base = `http://127.0.0.1:${port}`
    const cookie = await signupCookie(base, "stream")
    const stream = await fetch(`${base}/platform/v1/events/stream`, { headers: { cookie } })
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(": connected")
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    const started = Date.now()
    child.kill("SIGTERM")
    // The body ends (a clean last chunk), not cut off with the connection after the 15 s drain limit.
    const rest: Array<string> = []
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) break
      rest.push(new TextDecoder().decode(chunk.value))
    }
    expect(rest.join("")).not.toContain("event:")
    expect(await exited).toBe(0)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(output()).toContain("http server drained")
  }, 60_000)

  it("SIGTERM with inbound POSTs in flight: every one is written and answered 200, none cancelled", async () => {
    // The sandbox upstream is served by the server itself, at PUBLIC_URL.
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
    const { port, child, output } = await startServer({ PORT: String(free), PUBLIC_URL: `http://127.0.0.1:${free}` })
    const base = `http://127.0.0.1:${port}`
    const cookie = await signupCookie(base, "shutdown")
    const line = { phone_number_id: "100200300400", waba_id: "900800700" }
    const connected = await fetch(`${base}/platform/dashboard/channels/connect/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ code: "shutdown", ...line })
    })
    expect(connected.status).toBe(201)
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))

    // 60 POSTs on 60 connections the server has already accepted (each served a
    // /readyz first); SIGTERM as soon as the first POST is answered.
    const agent = new Agent({ keepAlive: true, maxSockets: 60 })
    const warm = await Promise.all(Array.from({ length: 60 }, () =>
      new Promise<number>((resolve, reject) => {
        request({ host: "127.0.0.1", port, path: "/readyz", agent }, (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
        }).on("error", reject).end()
      })))
    expect(warm.every((s) => s === 200)).toBe(true)
    let first: () => void
    const firstAnswered = new Promise<void>((resolve) => (first = resolve))
    const answers = Array.from({ length: 60 }, (_, i) => {
      const { body, signature } = signedBody(inboundText(line, `55119300000${String(i).padStart(2, "0")}`, `shutdown ${i}`))
      return new Promise<number>((resolve, reject) => {
        const req = request({
          host: "127.0.0.1",
          port,
          path: "/webhook/incoming",
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "x-hub-signature-256": signature }
        }, (res) => {
          res.resume()
          res.on("end", () => {
            first()
            resolve(res.statusCode ?? 0)
          })
        })
        req.on("error", reject)
        req.end(body)
      })
    })
    await firstAnswered
    child.kill("SIGTERM")
    expect(await Promise.all(answers)).toEqual(answers.map(() => 200))
    expect(await exited).toBe(0)
    expect(output()).not.toContain("request failed")
    expect(output()).not.toContain("inbound statement failed")
    agent.destroy()
  }, 60_000)
})

describe("stopping within the grace period", () => {
  it("npm start passes SIGTERM and SIGINT on: npm, the launcher and the server are gone within the grace period, exit code 0, and the port and the embedded database are free for the next start", async () => {
    expect(existsSync(main), "build the server first (npm run build -w @platform/server)").toBe(true)
    const port = await freePort()
    const dir = scratchDir()
    const pglite = join(dir, "pglite")
    const env = serverEnv({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PGLITE_DIR: pglite,
      DATA_DIR: dir,
      SHUTDOWN_GRACE_MS: "5000"
    })
    // The second start runs on the port and the directory the first one held.
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const npm = run("npm", ["start", "--", "--no-build"], { env, cwd: repositoryRoot })
      await untilAnswer(npm, `http://127.0.0.1:${port}/readyz`)
      const tree = descendants(npm.child.pid!)
      expect(tree.length, "the launcher and the server run under npm").toBeGreaterThanOrEqual(2)
      const sent = Date.now()
      npm.child.kill(signal)
      expect(await npm.exit).toEqual({ code: 0, signal: null })
      expect(Date.now() - sent).toBeLessThan(5_000)
      expect(tree.filter(alive), "no process of the tree lives on").toEqual([])
      expect(npm.output()).toContain(`${signal} received: stopping`)
      expect(existsSync(`${pglite}.lock`)).toBe(false)
    }
    // And the port is free after the second: this process can listen on it.
    await new Promise<void>((resolve, reject) => {
      const probe = createServer().once("error", reject).listen(port, "127.0.0.1", () => probe.close(() => resolve()))
    })
  }, 180_000)

  it("SIGTERM with slow requests in flight: one whose body arrives within the grace period is answered 200, one unfinished at the deadline has its connection closed, and the process exits 0", async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const server = run(process.execPath, [main], {
      env: serverEnv({ PORT: String(port), PUBLIC_URL: base, PGLITE_MEMORY: "1", SHUTDOWN_GRACE_MS: "3000" })
    })
    await untilAnswer(server, `${base}/readyz`)
    const line = { phone_number_id: "100200300401", waba_id: "900800701" }
    const cookie = await signupCookie(base, "slow")
    const connected = await fetch(`${base}/platform/dashboard/channels/connect/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ code: "slow", ...line })
    })
    expect(connected.status).toBe(201)

    // A signed inbound POST whose body is sent in two parts, the second after `delay` ms (or never).
    const inFlight = (i: number, delay: number | undefined) => {
      const { body, signature } = signedBody(inboundText(line, `5511930000${i}`, `slow ${i}`))
      let sendRest = () => {}
      const answer = new Promise<number | "connection closed">((resolve) => {
        const req = request({
          host: "127.0.0.1",
          port,
          path: "/webhook/incoming",
          method: "POST",
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-hub-signature-256": signature }
        }, (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
        })
        req.on("error", () => resolve("connection closed"))
        req.write(body.slice(0, 20))
        sendRest = () => {
          if (delay !== undefined) setTimeout(() => req.end(body.slice(20)), delay)
        }
      })
      return { answer, sendRest: () => sendRest() }
    }
    const finishing = inFlight(1, 1_000)
    const unfinished = inFlight(2, undefined)
    // Both requests reach the server (their headers and a first part) before the signal.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const sent = Date.now()
    server.child.kill("SIGTERM")
    finishing.sendRest()
    unfinished.sendRest()
    expect(await finishing.answer).toBe(200)
    expect(await unfinished.answer).toBe("connection closed")
    expect(await server.exit).toEqual({ code: 0, signal: null })
    const took = Date.now() - sent
    expect(took).toBeGreaterThanOrEqual(2_900)
    expect(took).toBeLessThan(8_000)
    expect(server.output()).toContain("1 requests still running at the deadline had their connections closed")
  }, 60_000)

  it("SIGTERM with webhook deliveries in flight: one answered within the grace period is recorded delivered, one unanswered at the deadline is handed back and sent again as soon as the server is back, not after its 30 s lease", async () => {
    // Two receivers: `quick` answers 200 after a second; `stuck` never answers its first request.
    const quick: Array<string> = []
    const stuck: Array<string> = []
    const held: Array<ServerResponse> = []
    const receiver = (onBody: (body: string, res: ServerResponse) => void) =>
      new Promise<{ url: string; close: () => void }>((resolve) => {
        const s = createServer((req, res) => {
          let body = ""
          req.on("data", (c: Buffer) => (body += c.toString())).on("end", () => onBody(body, res))
        }).listen(0, "127.0.0.1", () => {
          resolve({
            url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`,
            close: () => {
              for (const res of held) res.destroy()
              s.closeAllConnections()
              s.close()
            }
          })
        })
      })
    const quickReceiver = await receiver((body, res) => {
      quick.push(body)
      setTimeout(() => res.end("ok"), 1_000)
    })
    const stuckReceiver = await receiver((body, res) => {
      stuck.push(body)
      if (stuck.length === 1) held.push(res)
      else res.end("ok")
    })
    try {
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      const env = serverEnv({
        PORT: String(port),
        PUBLIC_URL: base,
        DATA_DIR: scratchDir(),
        UNSAFE_ALLOW_LOCAL_TARGETS: "1",
        SHUTDOWN_GRACE_MS: "3000",
        ...await scratchDatabase()
      })
      const first = run(process.execPath, [main], { env })
      await untilAnswer(first, `${base}/readyz`)
      const line = { phone_number_id: "100200300402", waba_id: "900800702" }
      const cookie = await signupCookie(base, "deliveries")
      const post = (path: string, body: unknown) =>
        fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify(body) })
      expect((await post("/platform/dashboard/channels/connect/chat", { code: "deliveries", ...line })).status).toBe(201)
      for (const target of [quickReceiver, stuckReceiver]) {
        expect((await post("/platform/v1/webhooks/subscriptions", { target_url: target.url, event_types: ["message.received"] })).status)
          .toBe(201)
      }
      const { body, signature } = signedBody(inboundText(line, "5511930000900", "in flight at the stop"))
      const inbound = await fetch(`${base}/webhook/incoming`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": signature },
        body
      })
      expect(inbound.status).toBe(200)
      while (quick.length === 0 || stuck.length === 0) await new Promise((resolve) => setTimeout(resolve, 25))

      const sent = Date.now()
      first.child.kill("SIGTERM")
      expect(await first.exit).toEqual({ code: 0, signal: null })
      // It waited for the stuck POST until the deadline, then handed it back.
      expect(Date.now() - sent).toBeGreaterThanOrEqual(2_900)
      expect(first.output()).toContain("stop: 1 deliveries in flight at the deadline handed back, pending")

      const second = run(process.execPath, [main], { env })
      await untilAnswer(second, `${base}/readyz`)
      const back = Date.now()
      while (stuck.length < 2 && Date.now() - back < 10_000) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(stuck.length, "the handed-back delivery is sent again at once").toBe(2)
      expect(JSON.parse(stuck[1]!).id).toBe(JSON.parse(stuck[0]!).id)
      // The receiver has the resent POST; its answer is recorded right after: read the log once no row is still delivering.
      const readDeliveries = () =>
        fetch(`${base}/platform/v1/webhooks/deliveries`, { headers: { cookie } })
          .then((r) => r.json() as Promise<{ data: Array<{ status: string; attempts: number; response_status: number | null }> }>)
      let deliveries = await readDeliveries()
      for (const settled = Date.now(); deliveries.data.some((d) => d.status === "delivering") && Date.now() - settled < 10_000;) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        deliveries = await readDeliveries()
      }
      // Both delivered on their first recorded attempt: the quick one before the stop, the stuck one after it.
      expect(deliveries.data.map((d) => [d.status, d.attempts, d.response_status])).toEqual([
        ["delivered", 1, 200],
        ["delivered", 1, 200]
      ])
      expect(quick).toHaveLength(1)
      second.child.kill("SIGTERM")
      expect(await second.exit).toEqual({ code: 0, signal: null })
    } finally {
      quickReceiver.close()
      stuckReceiver.close()
    }
  }, 120_000)
})
