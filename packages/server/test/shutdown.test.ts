import { describe, expect, it } from "vitest"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { inboundText, signedBody } from "./fixtures/meta/inbound.js"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

const startServer = (env: Record<string, string> = {}) =>
  new Promise<{ port: number; child: ReturnType<typeof spawn>; output: () => string }>((resolve, reject) => {
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", PGLITE_MEMORY: "1", LOG_FORMAT: "json", DATABASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output)
      if (match) resolve({ port: Number(match[1]), child, output: () => output })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.on("exit", (code) => reject(new Error(`server exited early with ${code}: ${output}`)))
  })

/** Signs up `name`@example.com and returns the dashboard session cookie. */
const signupCookie = async (base: string, name: string) => {
  const signup = await fetch(`${base}/platform/dashboard/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}@example.com`, password: `${name} password`, name })
  })
  return signup.headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
}

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
