import { afterEach, describe, expect, it } from "vitest"
import { freePort, removeScratch, run, scratchDatabase, serverEnv, serverMain, stopAll, untilAnswer } from "../support/process.js"

afterEach(async () => {
  stopAll()
  await removeScratch()
})

const TOKEN = "worker-metrics-token"

describe("a ROLE=worker process", () => {
  it("answers /healthz, /readyz and /metrics (with its token) on PORT, and 404 in the error shape for every API route", async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const worker = run(process.execPath, [serverMain], {
      env: serverEnv({ ...await scratchDatabase(), ROLE: "worker", PORT: String(port), METRICS_TOKEN: TOKEN })
    })
    await untilAnswer(worker, `${base}/readyz`)

    const healthz = await fetch(`${base}/healthz`)
    expect([healthz.status, await healthz.json()]).toEqual([200, { status: "ok" }])
    const readyz = await fetch(`${base}/readyz`)
    expect([readyz.status, await readyz.json()]).toEqual([200, { status: "ready" }])
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toContain("# HELP")
    const noToken = await fetch(`${base}/metrics`)
    expect(noToken.status).toBe(401)
    await noToken.body?.cancel()

    for (const [method, path, body] of [
      ["GET", "/platform/v1/channels", undefined],
      ["POST", "/platform/v1/messages", "{}"],
      ["GET", "/platform/v1/openapi.json", undefined],
      ["POST", "/platform/dashboard/signup", "{\"email\":\"a@example.com\"}"],
      ["POST", "/webhook/incoming", "{}"],
      ["GET", "/healthz/extra?x=1", undefined]
    ] as const) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { "content-type": "application/json", "x-request-id": "req-worker-probe" },
        ...(body === undefined ? {} : { body })
      })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.headers.get("x-request-id")).toBe("req-worker-probe")
      expect(await res.json()).toEqual({
        detail: {
          code: "not_found",
          message: `No route for ${method} ${path.split("?")[0]}: a worker process (ROLE=worker) answers only /healthz, /readyz and /metrics`
        }
      })
    }

    worker.child.kill("SIGTERM")
    expect((await worker.exit).code).toBe(0)
  }, 120_000)
})
