import { describe, expect, it } from "vitest"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { Agent, request } from "node:http"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))

const startServer = () =>
  new Promise<{ port: number; child: ReturnType<typeof spawn>; output: () => string }>((resolve, reject) => {
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", PGLITE_MEMORY: "1", LOG_FORMAT: "json", DATABASE_URL: "" },
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
})
