import { BASE_URL, mockApi } from "@platform/test-support/mock-api"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PermissionDeniedError,
  Platform,
  PlatformError,
  RateLimitError,
  TemplateQuotaError,
  UnexpectedResponseError,
  UpstreamError,
  ValidationError
} from "../src/index.js"

const api = mockApi()
const client = () => new Platform({ apiKey: "pk_test_key", baseUrl: BASE_URL, maxRetries: 0 })
const coded = (code: string, message: string, extra: Record<string, unknown> = {}) => ({ detail: { code, message, ...extra } })
const issue = { loc: ["body", "text"], msg: "is missing", type: "missing", input: null, ctx: {} }
const upstream = { error: "upstream_error", meta_code: 131047, meta_subcode: 2494010, meta_title: "Re-engagement message", message: "More than 24 hours have passed", fbtrace_id: "AbCdEf123" }

const table = [
  { status: 400, body: coded("chat_only", "only on chat channels"), cls: BadRequestError, fields: { code: "chat_only", message: "400 chat_only: only on chat channels" } },
  { status: 401, body: coded("unauthorized", "API key missing, invalid, inactive or expired"), cls: AuthenticationError, fields: { code: "unauthorized" } },
  { status: 403, body: coded("missing_scope", "the API key lacks the scope", { required_scope: "send:messages" }), cls: PermissionDeniedError, fields: { code: "missing_scope", requiredScope: "send:messages" } },
  { status: 403, body: coded("plan_forbidden", "not on free"), cls: PermissionDeniedError, fields: { code: "plan_forbidden", requiredScope: undefined } },
  { status: 404, body: coded("not_found", "not found"), cls: NotFoundError, fields: { code: "not_found" } },
  { status: 409, body: coded("status_locked", "pending", { status: "pending" }), cls: ConflictError, fields: { code: "status_locked" } },
  { status: 422, body: { detail: [issue] }, cls: ValidationError, fields: { code: "validation_error", detail: [issue], message: "422 validation failed: body.text: is missing" } },
  { status: 422, body: coded("event_not_configured", "not configured", { configured_event_types: ["message.sent"] }), cls: ValidationError, fields: { code: "event_not_configured", detail: [] } },
  { status: 429, body: { detail: "rate limit exceeded" }, headers: { "retry-after": "7" }, cls: RateLimitError, fields: { code: "rate_limit_exceeded", retryAfter: 7 } },
  { status: 429, body: { detail: "template quota exceeded: 250 of 250 used" }, cls: TemplateQuotaError, fields: { code: "template_quota_exceeded" } },
  { status: 501, body: coded("not_implemented", "managed elsewhere"), cls: NotImplementedError, fields: { code: "not_implemented" } },
  { status: 502, body: upstream, cls: UpstreamError, fields: { code: "upstream_error", metaCode: 131047, metaSubcode: 2494010, metaTitle: "Re-engagement message", fbtraceId: "AbCdEf123", hint: null, message: "502 More than 24 hours have passed" } },
  {
    status: 502,
    body: { ...upstream, hint: "Send an approved template to reopen the conversation." },
    cls: UpstreamError,
    fields: {
      code: "upstream_error",
      metaCode: 131047,
      hint: "Send an approved template to reopen the conversation.",
      message: "502 More than 24 hours have passed. Hint: Send an approved template to reopen the conversation."
    }
  },
  {
    status: 502,
    body: coded("upstream_error", "sync failed at the upstream: Session has expired", { error: "auth", meta_code: 190, meta_subcode: 463, meta_title: "Access token has expired", fbtrace_id: "AfTrace190", hint: "Reconnect the channel." }),
    cls: UpstreamError,
    fields: { code: "upstream_error", metaCode: 190, hint: "Reconnect the channel.", message: "502 upstream_error: sync failed at the upstream: Session has expired. Hint: Reconnect the channel." }
  },
  {
    status: 502,
    body: coded("upstream_error", "health failed at the upstream: Session has expired", { error: "auth", meta_code: 190, meta_subcode: 463, meta_title: "Access token has expired", fbtrace_id: "AfTrace190" }),
    cls: UpstreamError,
    fields: { code: "upstream_error", metaCode: 190, metaSubcode: 463, metaTitle: "Access token has expired", fbtraceId: "AfTrace190", message: "502 upstream_error: health failed at the upstream: Session has expired" }
  },
  { status: 500, body: "Internal Server Error", cls: InternalServerError, fields: { code: undefined, message: "500 Internal Server Error" } }
] as const

describe("error classes", () => {
  it.each(table)("$status $cls.name carries status, code, requestId, headers, body and its own fields", async (c) => {
    api.on("get", "/platform/v1/channels", { status: c.status, json: c.body, headers: { "x-request-id": "req_abc", ...("headers" in c ? c.headers : {}) } })
    const error = await client().channels.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(c.cls)
    expect(error).toBeInstanceOf(APIError)
    expect(error).toBeInstanceOf(PlatformError)
    expect(error).toBeInstanceOf(Error)
    const e = error as APIError
    expect(e.name).toBe(c.cls.name)
    expect(e.status).toBe(c.status)
    expect(e.requestId).toBe("req_abc")
    expect(e.headers.get("x-request-id")).toBe("req_abc")
    expect(e.body).toEqual(c.body)
    expect(e).toMatchObject(c.fields)
  })

  it("a template-quota 429 is not a RateLimitError, so catching rate limits does not swallow it", () => {
    const e = APIError.generate(429, { detail: "template quota exceeded: used up" }, new Headers())
    expect(e).toBeInstanceOf(TemplateQuotaError)
    expect(e).not.toBeInstanceOf(RateLimitError)
  })

  it("a refused connection is an APIConnectionError with no status, never ofetch's FetchError", async () => {
    const c = new Platform({ apiKey: "k", baseUrl: "http://127.0.0.1:1", maxRetries: 0 })
    const error = await c.channels.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIConnectionError)
    expect(error).toMatchObject({ name: "APIConnectionError", status: undefined, requestId: undefined })
    expect((error as Error).constructor.name).not.toBe("FetchError")
    expect((error as Error).message).toMatch(/^Connection error/)
  })

  it("a missing API key fails at construction with a message that says how to set one", () => {
    const saved = process.env.PLATFORM_API_KEY
    delete process.env.PLATFORM_API_KEY
    try {
      expect(() => new Platform()).toThrow(/PLATFORM_API_KEY/)
    } finally {
      if (saved !== undefined) process.env.PLATFORM_API_KEY = saved
    }
  })

  it.each(["localhost:8080", "127.0.0.1:8080", "not a url", "ftp://files.test", ""])(
    "a base URL that is not an absolute http(s) URL (%j) fails at construction with a message that shows the form",
    (baseUrl) => {
      const construct = () => new Platform({ apiKey: "k", baseUrl })
      expect(construct).toThrow(PlatformError)
      expect(construct).toThrow(/absolute http:\/\/ or https:\/\/ URL, such as http:\/\/localhost:8080/)
    }
  )

  it.each([`${BASE_URL}/platform/v1`, `${BASE_URL}/platform/v1/`, ` ${BASE_URL}/ `])("a base URL given as %j reaches the routes under the origin", async (baseUrl) => {
    api.on("get", "/platform/v1/channels", { json: [] })
    await expect(new Platform({ apiKey: "k", baseUrl, maxRetries: 0 }).channels.list()).resolves.toEqual([])
    expect(api.calls[0]!.path).toBe("/platform/v1/channels")
  })

  it("apiKey and baseUrl fall back to PLATFORM_API_KEY and PLATFORM_BASE_URL", async () => {
    process.env.PLATFORM_API_KEY = "pk_from_env"
    process.env.PLATFORM_BASE_URL = `${BASE_URL}/`
    try {
      api.on("get", "/platform/v1/channels", { json: [] })
      await new Platform({ maxRetries: 0 }).channels.list()
      expect(api.calls[0]!.headers.get("x-api-key")).toBe("pk_from_env")
    } finally {
      delete process.env.PLATFORM_API_KEY
      delete process.env.PLATFORM_BASE_URL
    }
  })
})

describe("a 2xx answer that is not the API's (wrong port, a proxy's page)", () => {
  let answer: { status: number; headers: Record<string, string>; body: string } = { status: 200, headers: {}, body: "" }
  let hits = 0
  let server: Server
  let base: string
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++
      res.writeHead(answer.status, answer.headers).end(answer.body)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const loopback = () => new Platform({ apiKey: "k", baseUrl: base, maxRetries: 2 })

  it.each([
    ["an HTML page", { "content-type": "text/html; charset=utf-8" }, "<!doctype html><h1>Vite</h1>", "200 text/html; charset=utf-8, not JSON"],
    ["plain text without a Content-Type", {}, "ok", "200 without a Content-Type, not JSON"],
    ["JSON that does not parse", { "content-type": "application/json" }, "<html>", "200 application/json whose body is not JSON (Unexpected token"]
  ] as Array<[string, Record<string, string>, string, string]>)("%s throws UnexpectedResponseError naming the status, the type and the base URL, without retrying", async (_name, headers, body, got) => {
    answer = { status: 200, headers, body }
    hits = 0
    const error = await loopback().channels.list().catch((e: unknown) => e)
    expect(hits).toBe(1)
    expect(error).toBeInstanceOf(UnexpectedResponseError)
    expect(error).toBeInstanceOf(APIError)
    expect(error).toBeInstanceOf(PlatformError)
    const e = error as UnexpectedResponseError
    expect(e.message).toContain(`GET ${base}/platform/v1/channels answered ${got}`)
    expect(e.message).toContain(`the base URL ${base} may not be the platform API`)
    expect(e).toMatchObject({ name: "UnexpectedResponseError", status: 200, code: undefined, body })
    expect(e.contentType).toBe(headers["content-type"])
  })

  it("a 204 answer is still a success without a body", async () => {
    answer = { status: 204, headers: {}, body: "" }
    await expect(loopback().webhooks.subscriptions.delete(11)).resolves.toBeUndefined()
  })

  it("events.stream() answered with an HTML page ends with UnexpectedResponseError instead of reconnecting", async () => {
    answer = { status: 200, headers: { "content-type": "text/html" }, body: "<!doctype html>" }
    const stream = loopback().events.stream({ maxReconnects: 0 })
    const error = await (async () => {
      for await (const _ of stream) return undefined
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnexpectedResponseError)
    expect((error as Error).message).toContain("200 text/html, not an event stream (text/event-stream)")
  })
})
