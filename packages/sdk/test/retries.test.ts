import { CLIENT_BACKOFF_JITTER, CLIENT_BACKOFF_SECONDS, TEMPLATE_QUOTA_PREFIX } from "@platform/shared"
import * as f from "@platform/test-support/fixtures"
import { BASE_URL, mockApi, type Reply } from "@platform/test-support/mock-api"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { BACKOFF_JITTER, BACKOFF_SECONDS, retryDelayMs, timers } from "../src/core/request.js"
import { Platform } from "../src/index.js"

const api = mockApi()
let slept: number[] = []

beforeEach(() => {
  slept = []
  vi.spyOn(timers, "sleep").mockImplementation(async (ms) => {
    slept.push(ms)
  })
  vi.spyOn(timers, "random").mockReturnValue(0.5)
})
afterEach(() => vi.restoreAllMocks())

const client = (maxRetries = 5) => new Platform({ apiKey: "pk_test_key", baseUrl: BASE_URL, maxRetries })
const ok: Reply = { json: f.sendResult }
const coded = (code: string, message: string) => ({ detail: { code, message } })

interface PolicyCase {
  readonly name: string
  readonly first: Reply
  readonly retried: boolean
  readonly error?: string
  readonly delay?: number
}

const policy: ReadonlyArray<PolicyCase> = [
  { name: "429 rate limit with Retry-After: 3 waits 3 s, then retries", first: { status: 429, json: { detail: "rate limit exceeded" }, headers: { "retry-after": "3" } }, retried: true, delay: 3000 },
  { name: "429 rate limit without Retry-After backs off 1 s", first: { status: 429, json: { detail: "rate limit exceeded" } }, retried: true, delay: 1000 },
  { name: "500 is retried after 1 s", first: { status: 500, json: { detail: { code: "internal", message: "boom" } } }, retried: true, delay: 1000 },
  { name: "503 is retried", first: { status: 503, json: null }, retried: true, delay: 1000 },
  { name: "a reset connection is retried", first: { network: true }, retried: true, delay: 1000 },
  { name: "400 chat_only is not retried", first: { status: 400, json: coded("chat_only", "chat only") }, retried: false, error: "BadRequestError" },
  { name: "401 is not retried", first: { status: 401, json: coded("unauthorized", "bad key") }, retried: false, error: "AuthenticationError" },
  { name: "404 is not retried", first: { status: 404, json: coded("not_found", "not found") }, retried: false, error: "NotFoundError" },
  { name: "422 is not retried", first: { status: 422, json: { detail: [{ loc: ["body", "text"], msg: "is missing", type: "missing", input: null, ctx: {} }] } }, retried: false, error: "ValidationError" },
  { name: "429 template quota is not retried", first: { status: 429, json: { detail: `${TEMPLATE_QUOTA_PREFIX}250 of 250 used` }, headers: { "retry-after": "1" } }, retried: false, error: "TemplateQuotaError" },
  { name: "502 from the upstream (a refusal the Idempotency-Key replays) is not retried", first: { status: 502, json: { error: "reengagement_required", meta_code: 131047, meta_subcode: null, meta_title: "Re-engagement message", message: "(#131047) Re-engagement message", fbtrace_id: null } }, retried: false, error: "UpstreamError" },
  { name: "502 upstream_timeout (kept with the key: a retry replays it) is not retried", first: { status: 502, json: { error: "upstream_timeout", meta_code: null, meta_subcode: null, meta_title: null, message: "Upstream did not answer messages.send within 10000 ms", fbtrace_id: null } }, retried: false, error: "UpstreamError" },
  { name: "502 upstream_throttled (the platform's own throttle; nothing was sent) is retried", first: { status: 502, json: { error: "upstream_throttled", meta_code: null, meta_subcode: null, meta_title: null, message: "throttled", fbtrace_id: null } }, retried: true, delay: 1000 },
  { name: "a 502 of a proxy in front (no upstream envelope) is retried", first: { status: 502, json: null }, retried: true, delay: 1000 },
  { name: "501 is not retried", first: { status: 501, json: coded("not_implemented", "no") }, retried: false, error: "NotImplementedError" }
]

describe("retry policy", () => {
  it.each(policy)("$name", async (c) => {
    api.on("post", "/platform/v1/messages", c.first, ok)
    const send = client().messages.sendText({ channel_id: 7, to: "1555", text: "hi" })
    if (c.retried) {
      await expect(send).resolves.toEqual(f.sendResult)
      expect(api.calls).toHaveLength(2)
      expect(slept).toEqual([c.delay])
    } else {
      await expect(send).rejects.toMatchObject({ name: c.error })
      expect(api.calls).toHaveLength(1)
      expect(slept).toEqual([])
    }
  })

  it("every retry of a send carries the same Idempotency-Key", async () => {
    api.on("post", "/platform/v1/messages", { network: true }, { status: 500, json: null }, { status: 429, json: { detail: "rate limit exceeded" } }, ok)
    await client().messages.sendText({ channel_id: 7, to: "1555", text: "hi" })
    const keys = api.calls.map((c) => c.headers.get("idempotency-key"))
    expect(keys).toHaveLength(4)
    expect(new Set(keys).size).toBe(1)
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("two logical sends get two different Idempotency-Keys", async () => {
    api.on("post", "/platform/v1/messages", ok)
    const c = client()
    await c.messages.sendText({ channel_id: 7, to: "1555", text: "a" })
    await c.messages.sendText({ channel_id: 7, to: "1555", text: "a" })
    expect(api.calls[0]!.headers.get("idempotency-key")).not.toBe(api.calls[1]!.headers.get("idempotency-key"))
  })

  it("backs off 1, 2, 4, 8, 16 s and then throws the last error", async () => {
    api.on("get", "/platform/v1/channels", { status: 502, json: { error: "upstream", meta_code: 1, meta_subcode: null, meta_title: null, message: "x", fbtrace_id: null } })
    await expect(client().channels.list()).rejects.toMatchObject({ name: "UpstreamError", status: 502 })
    expect(api.calls).toHaveLength(6)
    expect(slept).toEqual([1000, 2000, 4000, 8000, 16000])
  })

  it("a POST without an Idempotency-Key is not retried on 500 (it may have been applied)", async () => {
    api.on("post", "/platform/v1/webhooks/subscriptions", { status: 500, json: null }, { status: 201, json: f.subscription })
    await expect(client().webhooks.subscriptions.create({ target_url: "https://example.com/h" })).rejects.toMatchObject({ name: "InternalServerError" })
    expect(api.calls).toHaveLength(1)
  })

  it("a send with a caller's Idempotency-Key is retried on 500 with that key", async () => {
    api.on("post", "/platform/v1/messages", { status: 500, json: null }, ok)
    await client().messages.sendText({ channel_id: 7, to: "1555", text: "hi" }, { idempotencyKey: "order-1" })
    expect(api.calls.map((c) => c.headers.get("idempotency-key"))).toEqual(["order-1", "order-1"])
  })

  it.each([
    ["subscriptions.create", "/platform/v1/webhooks/subscriptions", (c: Platform) => c.webhooks.subscriptions.create({ target_url: "https://example.com/h" }, { idempotencyKey: "k-1" })],
    ["deliveries.redeliver", "/platform/v1/webhooks/deliveries/21/redeliver", (c: Platform) => c.webhooks.deliveries.redeliver(21, { idempotencyKey: "k-1" })],
    ["subscriptions.test", "/platform/v1/webhooks/subscriptions/11/test", (c: Platform) => c.webhooks.subscriptions.test(11, {}, { idempotencyKey: "k-1" })]
  ])("%s with a caller's Idempotency-Key is not retried on 500 or a dropped connection: only POST /messages deduplicates by it", async (_name, path, call) => {
    api.on("post", path, { status: 500, json: null }, { json: f.subscription })
    await expect(call(client())).rejects.toMatchObject({ name: "InternalServerError" })
    api.on("post", path, { network: true }, { json: f.subscription })
    await expect(call(client())).rejects.toMatchObject({ name: "APIConnectionError" })
    expect(api.calls.map((c) => c.headers.get("idempotency-key"))).toEqual(["k-1", "k-1"])
  })

  it("a POST without a key is still retried on a rate-limit 429 (the server did not process it)", async () => {
    api.on("post", "/platform/v1/webhooks/subscriptions", { status: 429, json: { detail: "rate limit exceeded" } }, { status: 201, json: f.subscription })
    await expect(client().webhooks.subscriptions.create({ target_url: "https://example.com/h" })).resolves.toEqual(f.subscription)
    expect(api.calls).toHaveLength(2)
  })

  it("onRetry is told the status and the wait before each retry", async () => {
    api.on("get", "/platform/v1/channels", { status: 429, json: { detail: "rate limit exceeded" }, headers: { "retry-after": "3" } }, { status: 503, json: null }, { json: [f.channel] })
    const notices: unknown[] = []
    const c = new Platform({ apiKey: "pk_test_key", baseUrl: BASE_URL, onRetry: (n) => notices.push(n) })
    await expect(c.channels.list()).resolves.toEqual([f.channel])
    expect(notices).toEqual([
      { status: 429, delayMs: 3000, retry: 1, method: "GET", path: "/platform/v1/channels" },
      { status: 503, delayMs: 2000, retry: 2, method: "GET", path: "/platform/v1/channels" }
    ])
  })

  it("the client's signal aborts its requests", async () => {
    api.on("get", "/platform/v1/channels", { json: [f.channel] })
    const aborted = new Platform({ apiKey: "pk_test_key", baseUrl: BASE_URL, signal: AbortSignal.abort() })
    await expect(aborted.channels.list()).rejects.toMatchObject({ name: "APIUserAbortError" })
  })

  it("a Retry-After longer than 60 s is not waited for", async () => {
    api.on("get", "/platform/v1/channels", { status: 429, json: { detail: "rate limit exceeded" }, headers: { "retry-after": "600" } })
    await expect(client().channels.list()).rejects.toMatchObject({ name: "RateLimitError", retryAfter: 600 })
    expect(slept).toEqual([])
  })

  it("maxRetries per call overrides the client's", async () => {
    api.on("get", "/platform/v1/channels", { status: 500, json: null })
    await expect(client(5).channels.list({}, { maxRetries: 1 })).rejects.toMatchObject({ status: 500 })
    expect(api.calls).toHaveLength(2)
  })

  it("a timed-out attempt is an APIConnectionTimeoutError and is retried", async () => {
    vi.mocked(timers.sleep).mockRestore()
    vi.spyOn(timers, "sleep").mockImplementation(async (ms) => void slept.push(ms))
    let n = 0
    const slow: typeof fetch = (input, init) =>
      n++ === 0
        ? new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))))
        : Promise.resolve(Response.json([f.channel]))
    const c = new Platform({ apiKey: "k", baseUrl: BASE_URL, fetch: slow, timeout: 20, maxRetries: 0 })
    await expect(c.channels.list()).rejects.toMatchObject({ name: "APIConnectionTimeoutError" })
    n = 0
    const retrying = new Platform({ apiKey: "k", baseUrl: BASE_URL, fetch: slow, timeout: 20, maxRetries: 1 })
    await expect(retrying.channels.list()).resolves.toEqual([f.channel])
  })

  it("aborting through the signal rejects with APIUserAbortError and is not retried", async () => {
    const hang: typeof fetch = (_input, init) =>
      new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))))
    const controller = new AbortController()
    const c = new Platform({ apiKey: "k", baseUrl: BASE_URL, fetch: hang })
    const pending = c.channels.list({}, { signal: controller.signal })
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: "APIUserAbortError" })
  })
})

describe("backoff", () => {
  it("events.stream waits the Retry-After of a 429 or 503 before reconnecting, and the backoff without one", async () => {
    const sse = `id: ${f.envelope.id}\nevent: ${f.envelope.event}\ndata: ${JSON.stringify(f.envelope)}\n\n`
    api.on(
      "get",
      "/platform/v1/events/stream",
      { status: 429, json: { detail: "rate limit exceeded" }, headers: { "retry-after": "7" } },
      { status: 503, json: null, headers: { "retry-after": "3" } },
      { status: 503, json: null },
      { sse: [sse] }
    )
    const delays: number[] = []
    const stream = client().events.stream({ onReconnect: ({ delayMs }) => delays.push(delayMs) })
    for await (const event of stream) {
      expect(event.id).toBe(f.envelope.id)
      stream.close()
    }
    expect(delays).toEqual([7000, 3000, 4000])
    expect(slept).toEqual([7000, 3000, 4000])
  })

  it("uses the schedule and jitter of @platform/shared", () => {
    expect(BACKOFF_SECONDS).toEqual(CLIENT_BACKOFF_SECONDS)
    expect(BACKOFF_JITTER).toBe(CLIENT_BACKOFF_JITTER)
  })

  it.each([
    [0, 0, 750],
    [0, 1, 1250],
    [2, 0.5, 4000],
    [4, 0, 12000],
    [4, 1, 20000],
    [9, 0.5, 16000]
  ])("retry %i with random %f waits %i ms (±25%% jitter, capped at 16 s)", (retry, random, ms) => {
    expect(retryDelayMs(retry, undefined, () => random)).toBe(ms)
  })

  it("Retry-After wins over the backoff", () => {
    expect(retryDelayMs(3, 2.5, () => 0)).toBe(2500)
  })
})
