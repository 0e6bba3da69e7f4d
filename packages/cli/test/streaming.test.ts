import { BASE_URL, mockApi } from "@platform/test-support/mock-api"
import { http, HttpResponse } from "msw"
import { verify, verifyAndParse, verifyStandard } from "@platform/webhook-verify"
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { forwardFailure } from "../src/commands/listen/listen.js"
import { cli, configHome } from "./support/cli.js"
import * as f from "./support/fixtures.js"

const api = mockApi()
const sse = (e: { id: string; event: string }) => `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e)}\n\n`

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A real loopback receiver that records each POST and answers with `status`. */
const receiver = async (status = 200) => {
  const received: Received[] = []
  let notify: () => void = () => undefined
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(status).end("ok")
      notify()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    /** Resolves once `n` requests have arrived. */
    waitFor: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (received.length >= n ? resolve() : undefined)
        notify = check
        check()
      })
  }
}
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

describe("listen", () => {
  it("forwards a streamed event to a loopback receiver, signed so that @platform/webhook-verify accepts it", async () => {
    const target = await receiver(200)
    const second = { ...f.envelope, id: "evt_ffffffffffffffffffffffffffffffff", event: "message.read" }
    api.on("get", "/platform/v1/events/stream", { sse: [": connected\n\n", sse(f.envelope), sse(second)], hold: true })
    const controller = new AbortController()
    const home = configHome()
    const running = cli(["listen", "--forward-to", target.url, "--events", "message.received,message.read"], { signal: controller.signal, env: { XDG_CONFIG_HOME: home } })
    await target.waitFor(2)
    await new Promise((r) => setTimeout(r, 50))
    controller.abort()
    const ran = await running

    expect(ran.code).toBe(130)
    const secret = /signing secret is (whsec_\S+)/.exec(ran.stderr)?.[1]
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(api.calls[0]!.query).toEqual({ event_types: "message.received,message.read" })

    const [first] = target.received
    expect(first!.body).toBe(JSON.stringify(f.envelope))
    expect(first!.headers["x-platform-event"]).toBe("message.received")
    expect(first!.headers["x-platform-event-id"]).toBe(f.envelope.id)
    expect(first!.headers["x-platform-delivery-id"]).toBe("1")
    expect(await verify(secret!, first!.body, first!.headers["x-platform-signature"] as string)).toEqual({ ok: true, secretIndex: 0 })
    expect(await verifyStandard(secret!, first!.body, first!.headers as Record<string, string>)).toMatchObject({ ok: true })
    const parsed = await verifyAndParse(secret!, first!.body, first!.headers["x-platform-signature"] as string)
    expect(parsed).toMatchObject({ ok: true })
    expect(await verify("whsec_d3Jvbmcgc2VjcmV0", first!.body, first!.headers["x-platform-signature"] as string)).toMatchObject({ ok: false, reason: "signature_mismatch" })

    expect(ran.stdout).toMatch(new RegExp(`--> message\\.received \\[${f.envelope.id}\\]`))
    expect(ran.stdout).toMatch(new RegExp(`<-- \\[200\\] POST ${target.url.replace(/[.]/g, "\\.")} \\[${f.envelope.id}\\]`))
    expect(ran.stdout).toMatch(/--> message\.read/)
  })

  it("--count ends listen with exit 0 after that many forwards; --timeout first exits 1", async () => {
    const target = await receiver(200)
    const second = { ...f.envelope, id: "evt_ffffffffffffffffffffffffffffffff", event: "message.read" }
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope), sse(second)], hold: true })
    const ran = await cli(["listen", "--forward-to", target.url, "--count", "1"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(target.received).toHaveLength(1)
    expect(ran.stderr).toMatch(/Ready!/)

    api.on("get", "/platform/v1/events/stream", { sse: [": connected\n\n"], hold: true })
    const timedOut = await cli(["listen", "--forward-to", target.url, "--count", "1", "--timeout", "1"])
    expect(timedOut.code).toBe(1)
    expect(timedOut.stderr).toMatch(/Timed out after 1 s with 0 of 1 events forwarded/)
  })

  it.each([
    ["answers 500", async () => (await receiver(500)).url, /2 of 2 forwards to .* failed \(no answer, or not 2xx\)/],
    ["is not running", async () => `http://127.0.0.1:${await closedPort()}/webhooks`, /2 of 2 forwards to .* failed \(no answer, or not 2xx\)/]
  ])("--count exits 1 when the receiver %s, saying how many forwards failed", async (_name, url, message) => {
    const second = { ...f.envelope, id: "evt_ffffffffffffffffffffffffffffffff", event: "message.read" }
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope), sse(second)], hold: true })
    const target = await url()
    const ran = await cli(["listen", "--forward-to", target, "--count", "2"])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toMatch(message)
  })

  it("--print-secret --json prints one JSON document {secret}, the same secret the plain form prints", async () => {
    const home = configHome()
    const plain = await cli(["listen", "--print-secret"], { env: { XDG_CONFIG_HOME: home } })
    const json = await cli(["listen", "--print-secret", "--json"], { env: { XDG_CONFIG_HOME: home } })
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual({ secret: plain.stdout.trim() })
  })

  it("reuses the profile's secret on the next run, so the receiver keeps working", async () => {
    const home = configHome()
    const first = await cli(["listen", "--forward-to", "http://127.0.0.1:9/x", "--print-secret"], { env: { XDG_CONFIG_HOME: home } })
    const again = await cli(["listen", "--forward-to", "http://127.0.0.1:9/x", "--print-secret"], { env: { XDG_CONFIG_HOME: home } })
    expect(first.stdout.trim()).toMatch(/^whsec_/)
    expect(again.stdout).toBe(first.stdout)
  })

  it("--print-secret alone (no --forward-to) prints the profile's secret and exits 0 without connecting", async () => {
    const home = configHome()
    const printed = await cli(["listen", "--print-secret"], { env: { XDG_CONFIG_HOME: home } })
    expect(printed).toMatchObject({ code: 0, stderr: "" })
    expect(printed.stdout.trim()).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    const forwarding = await cli(["listen", "--forward-to", "http://127.0.0.1:9/x", "--print-secret"], { env: { XDG_CONFIG_HOME: home } })
    expect(forwarding.stdout).toBe(printed.stdout)
    expect(api.calls).toHaveLength(0)
  })

  it("listen without --forward-to or --print-secret is a usage error (exit 2)", async () => {
    const ran = await cli(["listen", "--json"])
    expect(ran.code).toBe(2)
    expect(JSON.parse(ran.stderr)).toEqual({ error: { message: "required option '--forward-to <url>' not specified", exit_code: 2 } })
    expect(api.calls).toHaveLength(0)
  })

  it.each([
    ["without the whsec_ prefix", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    ["with nothing after whsec_", "whsec_"],
    ["that is not base64 after whsec_", "whsec_not-base64!"],
    ["with a trailing newline", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"]
  ])("a --secret %s is a usage error (exit 2) before connecting", async (_name, secret) => {
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const ran = await cli(["listen", "--forward-to", "http://127.0.0.1:9/webhooks", "--secret", secret, "--count", "1"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(/--secret must be a signing secret of the form whsec_<base64>/)
    expect(ran.stderr).not.toMatch(/Ready!/)
    expect(api.calls).toHaveLength(0)
  })

  it.each([
    ["X-Platform-Signature:sha256=forged", /--header X-Platform-Signature: listen sets this header itself/],
    ["content-type:text/plain", /--header content-type: listen sets this header itself/],
    ["Webhook-Id:msg_1", /--header Webhook-Id: listen sets this header itself/],
    ["Bad Name:x", /--header "Bad Name" is not a valid header name/]
  ])("--header %s is a usage error (exit 2) before connecting", async (value, message) => {
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const ran = await cli(["listen", "--forward-to", "http://127.0.0.1:9/webhooks", "--header", value, "--count", "1"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(message)
    expect(api.calls).toHaveLength(0)
  })

  it("--header X-Tenant twice in different case is a usage error; an Authorization header is forwarded", async () => {
    const twice = await cli(["listen", "--forward-to", "http://127.0.0.1:9/webhooks", "--header", "X-Tenant:a", "--header", "x-tenant:b"])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toMatch(/--header x-tenant is given twice/)
    const target = await receiver(200)
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const ran = await cli(["listen", "--forward-to", target.url, "--header", "Authorization: Bearer local", "--count", "1"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(target.received[0]!.headers.authorization).toBe("Bearer local")
  })

  it("a profile listen_secret that cannot sign exits 1 before connecting, naming the config file", async () => {
    const home = configHome()
    mkdirSync(join(home, "platform"))
    writeFileSync(join(home, "platform", "config.json"), JSON.stringify({ profiles: { default: { listen_secret: "hunter2" } } }))
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const ran = await cli(["listen", "--forward-to", "http://127.0.0.1:9/webhooks", "--count", "1"], { env: { XDG_CONFIG_HOME: home } })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toContain(`The listen_secret of profile "default" in ${join(home, "platform", "config.json")} is not a signing secret`)
    expect(api.calls).toHaveLength(0)
  })

  it("a forward that gets no answer says why in deliveries' words: connection refused (ECONNREFUSED), no response within 10000 ms", async () => {
    const port = await closedPort()
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const json = await cli(["listen", "--forward-to", `http://127.0.0.1:${port}/webhooks`, "--json", "--count", "1"])
    expect(json.code, json.stderr).toBe(1) // with --count, a failed forward is a failed run
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ event_id: f.envelope.id, status: null, error: "connection refused (ECONNREFUSED)" })
    const human = await cli(["listen", "--forward-to", `http://127.0.0.1:${port}/webhooks`, "--count", "1"])
    expect(human.stdout).toMatch(/<-- \[ERR\] POST http:\/\/127\.0\.0\.1:\d+\/webhooks \[evt_\w+\] \d+ms connection refused \(ECONNREFUSED\)/)
    expect(forwardFailure(new DOMException("The operation was aborted due to timeout", "TimeoutError"))).toBe("no response within 10000 ms")
  })

  it("--json prints one object per forwarded event with the receiver's status", async () => {
    const target = await receiver(500)
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const controller = new AbortController()
    const running = cli(["listen", "--forward-to", target.url, "--json"], { signal: controller.signal })
    await target.waitFor(1)
    await new Promise((r) => setTimeout(r, 50))
    controller.abort()
    const ran = await running
    const lines = ran.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines).toEqual([expect.objectContaining({ event_id: f.envelope.id, event: "message.received", status: 500, forward_to: target.url })])
  })
})

/** A loopback port with nothing listening. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Runs a streaming command until its stderr holds `lines` reconnect lines, then interrupts it. */
const untilReconnects = async (argv: ReadonlyArray<string>, lines: number, env: Record<string, string> = {}) => {
  const controller = new AbortController()
  const onStderr = (text: string) => {
    if ((text.match(/(reconnecting|retrying) in \d/g) ?? []).length >= lines) controller.abort()
  }
  return cli(argv, { signal: controller.signal, onStderr, env })
}

describe("reconnect lines say whether the stream was ever open, and why it failed", () => {
  const commands = [
    ["events tail", ["events", "tail"]],
    ["listen", ["listen", "--forward-to", "http://127.0.0.1:9/webhooks"]]
  ] as const

  it.each(commands)("%s with the server down from the start: Connecting ... failed (ECONNREFUSED)", async (_name, argv) => {
    const ran = await untilReconnects(argv, 1, { PLATFORM_BASE_URL: `http://127.0.0.1:${await closedPort()}` })
    expect(ran.code).toBe(130)
    expect(ran.stderr).toMatch(/Connecting to the event stream failed \(ECONNREFUSED\); retrying in \d+\.\d s/)
    // Neither "Ready!" (listen) nor "Streaming events" (events tail): no stream was ever open.
    expect(ran.stderr).not.toMatch(/Connection lost|Ready!|Streaming events/)
  })

  it.each(commands)("%s answered 429, then 503 on connect: each line names the HTTP status", async (_name, argv) => {
    api.on(
      "get",
      "/platform/v1/events/stream",
      { status: 429, json: { detail: "rate limit exceeded" }, headers: { "retry-after": "0" } },
      { status: 503, json: { detail: "unavailable" } }
    )
    const ran = await untilReconnects(argv, 2)
    expect(ran.stderr).toMatch(/Connecting to the event stream failed \(HTTP 429\); retrying in [\d.]+ s\n[\s\S]*Connecting to the event stream failed \(HTTP 503\)/)
    expect(ran.stderr).not.toMatch(/Connection lost/)
  })

  it.each(commands)("%s whose open stream ends, then cannot reconnect: Connection lost, then Reconnecting failed", async (_name, argv) => {
    // `retry: 1` makes the server's reconnect delay 1 ms, so the second attempt follows at once.
    api.on("get", "/platform/v1/events/stream", { sse: ["retry: 1\n\n"] }, { status: 503, json: { detail: "unavailable" } })
    const ran = await untilReconnects(argv, 2)
    expect(ran.stderr).toMatch(/Connection lost \(the server ended the stream\); reconnecting in 0\.0 s\n[\s\S]*Reconnecting failed \(HTTP 503\); retrying in 0\.0 s/)
  })
})

describe("a resume point the server no longer has", () => {
  const info = {
    last_event_id: "evt_00000000000000000000000000000000",
    starts_after: "evt_ffffffffffffffffffffffffffffffff",
    message: "Last-Event-ID evt_00000000000000000000000000000000 is not an event of this account from the last 24 hours; " +
      "the stream starts after the newest event, evt_ffffffffffffffffffffffffffffffff, and events after " +
      "evt_00000000000000000000000000000000 may have been missed."
  }
  const notice = `id: ${info.starts_after}\nevent: last_event_id_not_found\ndata: ${JSON.stringify(info)}\n\n`

  it("events tail --since warns on stderr that events may have been missed, and prints only events", async () => {
    api.on("get", "/platform/v1/events/stream", { sse: [": connected\n\n", notice, sse(f.envelope)], hold: true })
    const ran = await cli(["events", "tail", "--json", "--since", info.last_event_id, "--count", "1"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(api.calls[0]!.headers.get("last-event-id")).toBe(info.last_event_id)
    expect(ran.stderr).toContain(`Warning: ${info.message}`)
    expect(ran.stdout.trim().split("\n").map((l) => JSON.parse(l) as unknown)).toEqual([f.envelope])
  })

  it("events tail --since that is not an event id is a usage error (exit 2) before connecting", async () => {
    const ran = await cli(["events", "tail", "--since", "42"])
    expect(ran.code).toBe(2)
    expect(ran.stderr).toMatch(/--since must be an event id \(evt_ followed by 32 lowercase hex characters\), such as events tail prints, got "42"/)
    expect(api.calls).toHaveLength(0)
  })

  it("listen warns on stderr and forwards only events", async () => {
    const target = await receiver(200)
    api.on("get", "/platform/v1/events/stream", { sse: [notice, sse(f.envelope)], hold: true })
    const ran = await cli(["listen", "--forward-to", target.url, "--count", "1"])
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).toContain(`Warning: ${info.message}`)
    expect(target.received.map((r) => r.body)).toEqual([JSON.stringify(f.envelope)])
  })
})

describe("events tail", () => {
  it("--json prints each envelope as one JSON object per line, and Ctrl-C exits 130", async () => {
    const second = { ...f.envelope, id: "evt_ffffffffffffffffffffffffffffffff", event: "message.read" }
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope), sse(second)], hold: true })
    const controller = new AbortController()
    let out = ""
    const running = cli(["events", "tail", "--json", "--channel", "7"], { signal: controller.signal })
    for (let i = 0; i < 100 && api.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    await new Promise((r) => setTimeout(r, 100))
    controller.abort()
    const ran = await running
    out = ran.stdout
    expect(ran.code).toBe(130)
    expect(out.trim().split("\n").map((l) => JSON.parse(l) as unknown)).toEqual([f.envelope, second])
    expect(api.calls[0]!.query).toEqual({ channel_id: "7" })
  })

  it("a message.failed line says why the message failed", async () => {
    const failed = {
      ...f.envelope,
      event: "message.failed",
      data: { ...f.envelope.data, direction: "outbound", source: "api", status: "failed", error: { error: "upstream_error", meta_code: 131026, meta_subcode: null, meta_title: "Message undeliverable", message: "Message undeliverable", fbtrace_id: null } }
    }
    api.on("get", "/platform/v1/events/stream", { sse: [sse(failed as never)] })
    const ran = await cli(["events", "tail", "--count", "1", "--timeout", "5"])
    expect(ran.code).toBe(0)
    expect(ran.stdout).toMatch(/message\.failed\s+ch 7\s+to 15550001111 text "héllo ✓" failed: Message undeliverable \(code 131026\)\s+evt_/)
  })

  it("prints one line per event for people", async () => {
    api.on("get", "/platform/v1/events/stream", { sse: [sse(f.envelope)], hold: true })
    const controller = new AbortController()
    const running = cli(["events", "tail"], { signal: controller.signal })
    await new Promise((r) => setTimeout(r, 150))
    controller.abort()
    const ran = await running
    expect(ran.stdout).toMatch(/message\.received\s+ch 7\s+from 15550001111 text "héllo ✓"\s+evt_0123456789abcdef0123456789abcdef/)
    expect(ran.stderr).toMatch(/^Streaming events \(\^C to quit\)$/m)
  })
})

describe("deliveries tail", () => {
  const listCalls = () => api.calls.filter((c) => c.path === "/platform/v1/webhooks/deliveries")
  /** An event stream that sends one event and stays open: the tail polls once after it. */
  const oneEvent = () => api.on("get", "/platform/v1/events/stream", { sse: [": connected\n\n", sse(f.envelope)], hold: true })

  it("prints one line per new attempt (time, status, HTTP status, event type, latency) and skips history", async () => {
    const old = { ...f.delivery, id: 20 }
    const pending = { ...f.delivery, id: 21, status: "pending", attempts: 0, response_status: null, delivered_at: null }
    const failedOnce = { ...pending, status: "pending", attempts: 1, response_status: 503 }
    const delivered = { ...f.delivery, id: 21, attempts: 2 }
    const page = (...data: unknown[]) => ({ json: { mode: "native", data, has_more: false, next_cursor: null } })
    api.on("get", "/platform/v1/webhooks/deliveries", page(old), page(pending, old), page(failedOnce, old), page(delivered, old))
    oneEvent()
    const controller = new AbortController()
    const running = cli(["deliveries", "tail", "--interval", "5", "--json", "--subscription", "11"], { signal: controller.signal })
    for (let i = 0; i < 200 && listCalls().length < 4; i++) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    const ran = await running
    expect(ran.code).toBe(130)
    const lines = ran.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => [l.id, l.status, l.attempts, l.response_status, l.latency_ms])).toEqual([
      [21, "pending", 1, 503, null],
      [21, "delivered", 2, 200, 250]
    ])
    expect(listCalls()[0]!.query).toEqual({ subscription_id: "11", limit: "100" })
  })

  it("with more new deliveries between two polls than one page holds, pages back to the last one seen and prints every attempt", async () => {
    const delivered = (id: number) => ({ ...f.delivery, id, attempts: 1 })
    const ids = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i)
    const page = (rows: ReadonlyArray<number>, next: string | null) => ({
      json: { mode: "native", data: rows.map(delivered), has_more: next !== null, next_cursor: next }
    })
    // Poll 1: history up to 10. Poll 2: 150 new ones (11..160) over two pages, the second reaching 10. Then nothing new.
    api.on("get", "/platform/v1/webhooks/deliveries", page(ids(10, 1), "h1"), page(ids(160, 61), "c1"), page(ids(60, 1), "c2"), page(ids(160, 61), "c1"))
    // One event, then the stream ends and is reopened about 0.5 s later (a reconnect polls again).
    api.on("get", "/platform/v1/events/stream", { sse: ["retry: 500\n\n", sse(f.envelope)] }, { sse: [": connected\n\n"], hold: true })
    const controller = new AbortController()
    const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal })
    for (let i = 0; i < 400 && listCalls().length < 4; i++) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    const ran = await running
    expect(ran.code).toBe(130)
    const printed = ran.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { id: number }).id)
    expect(printed).toEqual(ids(160, 11).reverse())
    expect(listCalls().slice(0, 4).map((c) => c.query)).toEqual([{ limit: "100" }, { limit: "100" }, { limit: "100", after: "c1" }, { limit: "100" }])
  })

  it("a delivery still retrying below the newest page is looked up once its retry is due, and its next attempt printed", async () => {
    const past = new Date(Date.now() - 1000).toISOString()
    const retrying = { ...f.delivery, id: 5, status: "pending", attempts: 1, response_status: 503, delivered_at: null, next_retry_at: past }
    const rows = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => ({ ...f.delivery, id: from - i, attempts: 1 }))
    api.on(
      "get",
      "/platform/v1/webhooks/deliveries",
      { json: { mode: "native", data: [...rows(8, 6), retrying], has_more: false, next_cursor: null } },
      // The newest page reaches 8, the newest delivery already seen: 5 is below it.
      { json: { mode: "native", data: rows(12, 8), has_more: true, next_cursor: "c1" } }
    )
    api.on("get", "/platform/v1/webhooks/deliveries/5", { json: { ...retrying, status: "delivered", attempts: 2, response_status: 200, next_retry_at: null } })
    const controller = new AbortController()
    const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal })
    for (let i = 0; i < 400 && api.calls.length < 5; i++) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    const ran = await running
    const printed = ran.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: number; status: string; attempts: number })
    expect(printed.map((d) => [d.id, d.status, d.attempts])).toEqual([[5, "delivered", 2], [9, "delivered", 1], [10, "delivered", 1], [11, "delivered", 1], [12, "delivered", 1]])
    expect(api.calls.filter((c) => c.path === "/platform/v1/webhooks/deliveries/5")).toHaveLength(1)
  })

  it("keeps polling through a spent rate limit (429) and a 503, saying so on stderr, instead of exiting", async () => {
    const old = { ...f.delivery, id: 20 }
    const failedOnce = { ...f.delivery, id: 21, status: "pending", attempts: 1, response_status: 503, delivered_at: null }
    const page = (...data: unknown[]) => ({ json: { mode: "native", data, has_more: false, next_cursor: null } })
    const limited = { status: 429, json: { detail: "rate limit exceeded" }, headers: { "retry-after": "0" } }
    const unavailable = { status: 503, json: { detail: "unavailable" }, headers: { "retry-after": "0" } }
    api.on("get", "/platform/v1/webhooks/deliveries", page(old), limited, limited, limited, unavailable, unavailable, unavailable, page(failedOnce, old))
    oneEvent()
    const controller = new AbortController()
    const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal })
    for (let i = 0; i < 400 && listCalls().length < 8; i++) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    const ran = await running
    expect(ran.code).toBe(130)
    expect(ran.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { id: number; attempts: number })).map((d) => [d.id, d.attempts])).toEqual([[21, 1]])
    expect(ran.stderr).toMatch(/Polling deliveries failed \(HTTP 429\); retrying in 0\.0 s/)
    expect(ran.stderr).toMatch(/Polling deliveries failed \(HTTP 503\); retrying in 0\.0 s/)
  })

  it("warns up front that a misspelt --event-type matches no delivery, and still polls with it", async () => {
    api.on("get", "/platform/v1/webhooks/deliveries", { json: { mode: "native", data: [], has_more: false, next_cursor: null } })
    const controller = new AbortController()
    const running = cli(["deliveries", "tail", "--interval", "5", "--event-type", "message.recieved"], { signal: controller.signal })
    for (let i = 0; i < 200 && api.calls.length < 1; i++) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    const ran = await running
    expect(api.calls[0]!.query).toMatchObject({ event_type: "message.recieved" })
    expect(ran.stderr).toContain("\"message.recieved\" is not an event type this CLI knows")
    expect(ran.stdout).toBe("")
  })

  it("says on a failed attempt's line why it failed", async () => {
    const pending = { ...f.delivery, id: 21, status: "pending", attempts: 0, response_status: null, delivered_at: null }
    const refused = { ...pending, attempts: 1, latency_ms: 3, last_error: "connection refused (ECONNREFUSED)" }
    const delivered = { ...f.delivery, id: 21, attempts: 2, last_error: null }
    const page = (...data: unknown[]) => ({ json: { mode: "native", data, has_more: false, next_cursor: null } })
    api.on("get", "/platform/v1/webhooks/deliveries", page(pending), page(refused), page(delivered))
    const controller = new AbortController()
    const running = cli(["deliveries", "tail", "--interval", "5"], { signal: controller.signal })
    for (let i = 0; i < 200 && api.calls.length < 4; i++) await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    const lines = (await running).stdout.trim().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/pending\s+\[---\]\s+message\.sent\s+3ms\s+connection refused \(ECONNREFUSED\)\s+attempt 1/)
    expect(lines[1]).not.toContain("connection refused")
  })

  describe("on the event stream", () => {
    const page = (...data: unknown[]) => ({ json: { mode: "native", data, has_more: false, next_cursor: null } })
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
    /** An event stream held open that sends an event when the test says so; `opened` counts connections. */
    const liveStream = () => {
      const sinks: Array<ReadableStreamDefaultController<Uint8Array>> = []
      const state = { opened: 0 }
      api.server.use(
        http.get(`${BASE_URL}/platform/v1/events/stream`, ({ request }) => {
          state.opened++
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              sinks.push(controller)
              controller.enqueue(new TextEncoder().encode(": connected\n\n"))
              request.signal.addEventListener("abort", () => controller.close())
            }
          })
          return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } })
        })
      )
      return {
        state,
        push: (e: { id: string; event: string }) => {
          for (const sink of sinks) sink.enqueue(new TextEncoder().encode(sse(e)))
        }
      }
    }
    const until = async (done: () => boolean, ms = 3000) => {
      for (let t = 0; t < ms && !done(); t += 10) await sleep(10)
    }

    it("while nothing happens, polls the deliveries list once instead of every --interval", async () => {
      const stream = liveStream()
      api.on("get", "/platform/v1/webhooks/deliveries", page({ ...f.delivery, id: 20 }))
      const controller = new AbortController()
      const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal })
      await until(() => listCalls().length >= 1 && stream.state.opened >= 1)
      await sleep(1000)
      controller.abort()
      const ran = await running
      expect(ran.code).toBe(130)
      expect(stream.state.opened).toBe(1)
      expect(listCalls()).toHaveLength(1)
      expect(ran.stdout).toBe("")
    })

    it("prints a new event's attempt promptly after the event arrives, with one more poll", async () => {
      const stream = liveStream()
      const attempt = { ...f.delivery, id: 21, attempts: 1 }
      api.on("get", "/platform/v1/webhooks/deliveries", page({ ...f.delivery, id: 20 }), page(attempt, { ...f.delivery, id: 20 }))
      const controller = new AbortController()
      let stdout = ""
      const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal, onStdout: (t) => (stdout = t) })
      await until(() => listCalls().length >= 1 && stream.state.opened >= 1)
      await sleep(300)
      expect(listCalls()).toHaveLength(1)
      const pushed = Date.now()
      stream.push(f.envelope)
      await until(() => stdout.includes("\n"))
      const took = Date.now() - pushed
      await sleep(200)
      controller.abort()
      const ran = await running
      expect(ran.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { id: number; attempts: number })).map((d) => [d.id, d.attempts])).toEqual([[21, 1]])
      expect(took).toBeLessThan(1500)
      expect(listCalls()).toHaveLength(2)
    })

    it("prints a retry scheduled for later once its next_retry_at comes due, without polling before", async () => {
      const stream = liveStream()
      const dueAt = Date.now() + 1500
      const failedOnce = { ...f.delivery, id: 21, status: "pending", attempts: 1, response_status: 503, delivered_at: null, next_retry_at: new Date(dueAt).toISOString() }
      const delivered = { ...f.delivery, id: 21, attempts: 2 }
      api.on("get", "/platform/v1/webhooks/deliveries", page({ ...f.delivery, id: 20 }), page(failedOnce), page(delivered))
      const controller = new AbortController()
      const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal })
      await until(() => listCalls().length >= 1 && stream.state.opened >= 1)
      stream.push(f.envelope)
      await until(() => listCalls().length >= 2)
      await sleep(Math.max(0, dueAt - Date.now() - 200))
      expect(listCalls()).toHaveLength(2)
      await until(() => listCalls().length >= 3)
      await sleep(100)
      controller.abort()
      const ran = await running
      expect(ran.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { status: string; attempts: number })).map((d) => [d.status, d.attempts])).toEqual([
        ["pending", 1],
        ["delivered", 2]
      ])
      expect(listCalls()).toHaveLength(3)
    })

    it("falls back to polling every --interval, saying so once, when the key may not open the event stream (403)", async () => {
      api.on("get", "/platform/v1/events/stream", { status: 403, json: { detail: { code: "forbidden", message: "missing scope manage:webhooks" } } })
      api.on("get", "/platform/v1/webhooks/deliveries", page({ ...f.delivery, id: 20 }), page({ ...f.delivery, id: 20 }), page({ ...f.delivery, id: 21 }, { ...f.delivery, id: 20 }))
      const controller = new AbortController()
      const running = cli(["deliveries", "tail", "--interval", "5", "--json"], { signal: controller.signal })
      await until(() => listCalls().length >= 4)
      controller.abort()
      const ran = await running
      expect(ran.code).toBe(130)
      expect(ran.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([21])
      expect(ran.stderr.match(/The event stream was refused \(HTTP 403\); polling the deliveries list every 5 ms instead/g)).toHaveLength(1)
    })
  })
})
