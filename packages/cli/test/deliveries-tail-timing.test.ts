import { startRealServer, startReceiver, type RealServer, type Receiver } from "@platform/test-support/real-server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clock } from "../src/output.js"
import { cli } from "./support/cli.js"

// One real server and one loopback receiver: the tail is timed against real attempts.
let server: RealServer
let receiver: Receiver
beforeAll(async () => {
  ;[server, receiver] = await Promise.all([startRealServer(), startReceiver()])
}, 120_000)
afterAll(async () => {
  await Promise.all([server?.close(), receiver?.close()])
})

const env = () => ({ PLATFORM_API_KEY: server.apiKey, PLATFORM_BASE_URL: server.baseUrl })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * `platform deliveries tail --subscription id`, running, with each line it prints and
 * when it printed it; `lineFor` waits up to 5 s for a delivery's line, `stop` ends the
 * tail (Ctrl-C) and checks that it exits as interrupted.
 */
const tail = async (id: number) => {
  const controller = new AbortController()
  const seen: Array<{ line: string; at: number }> = []
  let printed = 0
  const running = cli(["deliveries", "tail", "--subscription", String(id)], {
    env: env(),
    signal: controller.signal,
    onStdout: (text) => {
      const lines = text.split("\n").filter((l) => l !== "")
      for (const line of lines.slice(printed)) seen.push({ line, at: Date.now() })
      printed = lines.length
    }
  })
  await sleep(2500) // the tail's first poll only takes note of history
  const shown = (deliveryId: number) => seen.find((s) => s.line.includes(`delivery ${deliveryId} `))
  return {
    lineFor: async (deliveryId: number) => {
      for (let t = 0; t < 5000 && shown(deliveryId) === undefined; t += 20) await sleep(20)
      const line = shown(deliveryId)
      expect(line, `no line for delivery ${deliveryId}`).toBeDefined()
      return line!
    },
    stop: async () => {
      controller.abort()
      expect((await running).code).toBe(130)
    }
  }
}

/** A test event through the CLI; the id of the delivery it queued. */
const sendTestEvent = async (id: number) => {
  const test = await cli(["subscriptions", "test", String(id), "--event-type", "message.sent", "--json"], { env: env() })
  expect(test.code, test.stderr).toBe(0)
  return (JSON.parse(test.stdout) as { id: number }).id
}

/** A subscription to `url` created through the CLI; its id. */
const subscribe = async (url: string) => {
  const sub = await cli(["subscriptions", "create", "--url", url, "--json"], { env: env() })
  expect(sub.code, sub.stderr).toBe(0)
  return (JSON.parse(sub.stdout) as { id: number }).id
}

describe("deliveries tail against the real server", () => {
  it("prints a test delivery's attempt within 2 s of it, stamped with the attempt's own time", async () => {
    const id = await subscribe(receiver.url)
    const tailing = await tail(id)
    for (let i = 0; i < 2; i++) {
      const deliveryId = await sendTestEvent(id)
      const shown = await tailing.lineFor(deliveryId)
      const d = await cli(["deliveries", "get", String(deliveryId), "--json"], { env: env() })
      const got = JSON.parse(d.stdout) as { delivered_at: string; last_attempt_at: string }
      const deliveredAt = new Date(got.delivered_at)
      expect(got.last_attempt_at).toBe(got.delivered_at)
      expect(shown.line.startsWith(clock(deliveredAt, true))).toBe(true)
      expect(shown.line).toMatch(/delivered\s+\[200\]\s+message\.sent/)
      expect(shown.at - deliveredAt.getTime()).toBeLessThan(2000)
      await sleep(1000)
    }
    await tailing.stop()
  }, 60_000)

  it("prints a failed attempt stamped with its last_attempt_at, within 2 s of it", async () => {
    const failing = await startReceiver(() => 500)
    try {
      const id = await subscribe(failing.url)
      const tailing = await tail(id)
      const deliveryId = await sendTestEvent(id)
      const shown = await tailing.lineFor(deliveryId)
      const d = await cli(["deliveries", "get", String(deliveryId), "--json"], { env: env() })
      const got = JSON.parse(d.stdout) as { status: string; attempts: number; last_attempt_at: string | null }
      expect(got).toMatchObject({ status: "pending", attempts: 1 })
      const attemptedAt = new Date(got.last_attempt_at!)
      expect(shown.line.startsWith(clock(attemptedAt, true))).toBe(true)
      expect(shown.line).toMatch(/pending\s+\[500\]\s+message\.sent\s+\d+ms\s+HTTP 500\s+attempt 1/)
      expect(shown.at - attemptedAt.getTime()).toBeLessThan(2000)
      await tailing.stop()
    } finally {
      await failing.close()
    }
  }, 60_000)
})
