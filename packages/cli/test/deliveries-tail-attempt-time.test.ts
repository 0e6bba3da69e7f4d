import { mockApi } from "@platform/test-support/mock-api"
import { describe, expect, it } from "vitest"
import { clock } from "../src/output.js"
import { cli } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()
const sse = (e: { id: string; event: string }) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`
const page = (...data: unknown[]) => ({ json: { mode: "native", data, has_more: false, next_cursor: null } })
const listCalls = () => api.calls.filter((c) => c.path === "/platform/v1/webhooks/deliveries")

/** Runs the tail until it has polled the list `polls` times (an event on the stream prompts the second poll). */
const tail = async (polls: number, json: boolean) => {
  api.on("get", "/platform/v1/events/stream", { sse: [": connected\n\n", sse(f.envelope)], hold: true })
  const controller = new AbortController()
  const running = cli(["deliveries", "tail", "--interval", "5", ...(json ? ["--json"] : [])], { signal: controller.signal })
  for (let i = 0; i < 600 && listCalls().length < polls; i++) await new Promise((r) => setTimeout(r, 5))
  await new Promise((r) => setTimeout(r, 50))
  controller.abort()
  const ran = await running
  expect(ran.code, ran.stderr).toBe(130)
  return ran.stdout.trim().split("\n")
}

describe("deliveries tail stamps each line with the attempt's own time", () => {
  // The fourth attempt failed 10 minutes ago (its retry, 2 hours later, is due); the fifth and last failed 90 s ago.
  const fourthAt = new Date(Date.now() - 10 * 60_000)
  const fifthAt = new Date(Date.now() - 90_000)
  const old = { ...f.delivery, id: 20 }
  const retrying = {
    ...f.delivery,
    id: 21,
    status: "pending",
    attempts: 4,
    response_status: 500,
    delivered_at: null,
    last_error: "HTTP 500",
    latency_ms: 12,
    next_retry_at: new Date(fourthAt.getTime() + 120 * 60_000).toISOString(),
    last_attempt_at: fourthAt.toISOString()
  }
  const failed = { ...retrying, status: "failed", attempts: 5, next_retry_at: null, last_attempt_at: fifthAt.toISOString() }

  it("a delivery that failed for good: its line shows last_attempt_at, not when the tail noticed it", async () => {
    api.on("get", "/platform/v1/webhooks/deliveries", page(old), page(failed, old))
    const lines = await tail(2, false)
    expect(lines).toHaveLength(1)
    expect(lines[0]!.startsWith(clock(fifthAt, true))).toBe(true)
    expect(lines[0]).toMatch(/failed\s+\[500\]\s+message\.sent\s+12ms\s+HTTP 500\s+attempt 5 · delivery 21/)
  })

  it("--json: attempted_at is last_attempt_at on the retry line and on the final failure's", async () => {
    // The retry is printed as the fourth attempt, then its fifth attempt (a final failure) on the next poll.
    api.on("get", "/platform/v1/webhooks/deliveries", page(old), page(retrying, old), page(failed, old))
    const lines = (await tail(3, true)).map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => [l.status, l.attempts, l.attempted_at, l.last_attempt_at])).toEqual([
      ["pending", 4, fourthAt.toISOString(), fourthAt.toISOString()],
      ["failed", 5, fifthAt.toISOString(), fifthAt.toISOString()]
    ])
  })

  it("from a server without last_attempt_at: delivered_at, or next_retry_at less the retry delay, as before", async () => {
    const { last_attempt_at: _retry, ...oldRetrying } = retrying
    const { last_attempt_at: _delivered, ...oldDelivered } = { ...f.delivery, id: 22, attempts: 1, last_attempt_at: null }
    api.on("get", "/platform/v1/webhooks/deliveries", page(old), page(oldDelivered, oldRetrying, old))
    const lines = (await tail(2, true)).map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => [l.id, l.attempted_at, "last_attempt_at" in l])).toEqual([
      [21, fourthAt.toISOString(), false],
      [22, f.delivery.delivered_at, false]
    ])
  })
})
