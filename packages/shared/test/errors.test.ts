import { FetchHttpClient, HttpApi, HttpApiBuilder, HttpApiClient, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, HttpServer } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ParseResult, Schema } from "effect"
import {
  ChatOnly,
  ErrorClasses,
  ErrorCodes,
  EventNotConfigured,
  MissingScope,
  NotFound,
  RateLimited,
  SendUpstreamError,
  StatusLocked,
  TemplateQuotaExceeded,
  Unauthorized,
  UpstreamFailure,
  ValidationFailed,
  MarkRead,
  WebhookSubscriptionCreate,
  wire
} from "@platform/shared"

const failing = [
  new NotFound(),
  new NotFound({ message: "template 7 not found" }),
  new Unauthorized(),
  new MissingScope({ required_scope: "read:channels" }),
  new StatusLocked({ status: "pending", message: "template is pending" }),
  new EventNotConfigured({ configured_event_types: ["message.sent", "message.read"] }),
  new ChatOnly(),
  new UpstreamFailure({ message: "(#100) Invalid parameter" }),
  new ValidationFailed({
    detail: [{ loc: ["body", "components", 0, "format"], msg: "is missing", type: "missing", input: {}, ctx: {} }]
  }),
  new RateLimited(),
  TemplateQuotaExceeded.withReason("250 of 250 used this month"),
  new SendUpstreamError({
    error: "upstream_error",
    meta_code: 131047,
    meta_subcode: null,
    meta_title: "Re-engagement message",
    message: "More than 24 hours have passed",
    fbtrace_id: "AbC123"
  })
] as const

const Api = HttpApi.make("test").add(
  HttpApiGroup.make("errors")
    .add(
      HttpApiEndpoint.get("fail", "/fail/:n")
        .setPath(Schema.Struct({ n: Schema.NumberFromString }))
        .addSuccess(Schema.Struct({ ok: Schema.Boolean }))
        .addError(wire(NotFound))
        .addError(wire(Unauthorized))
        .addError(wire(MissingScope))
        .addError(wire(StatusLocked))
        .addError(wire(EventNotConfigured))
        .addError(wire(ChatOnly))
        .addError(wire(UpstreamFailure))
        .addError(wire(ValidationFailed))
        .addError(wire(RateLimited))
        .addError(wire(TemplateQuotaExceeded))
        .addError(wire(SendUpstreamError))
    )
    .add(HttpApiEndpoint.post("markRead", "/mark-read").setPayload(MarkRead).addSuccess(MarkRead))
)

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(
    HttpApiBuilder.group(Api, "errors", (handlers) =>
      handlers
        .handle("fail", ({ path }) => Effect.fail(failing[path.n]!))
        .handle("markRead", ({ payload }) => Effect.succeed(payload))
    )
  )
)

const { handler, dispose } = HttpApiBuilder.toWebHandler(Layer.mergeAll(ApiLive, HttpServer.layerContext))

const call = async (path: string, init?: RequestInit) => {
  const response = await handler(new Request(`http://test${path}`, init))
  return { status: response.status, body: await response.json() as unknown }
}

describe("error wire bodies", () => {
  it.each([
    [0, 404, { detail: { code: "not_found", message: "not found" } }],
    [1, 404, { detail: { code: "not_found", message: "template 7 not found" } }],
    [2, 401, { detail: { code: "unauthorized", message: "API key missing, invalid, inactive or expired: send a key of this account in the X-API-Key header" } }],
    [3, 403, {
      detail: {
        code: "missing_scope",
        message: "the API key lacks the scope this endpoint requires",
        required_scope: "read:channels"
      }
    }],
    [4, 409, { detail: { code: "status_locked", message: "template is pending", status: "pending" } }],
    [5, 422, {
      detail: {
        code: "event_not_configured",
        message: "the subscription is not configured for this event type",
        configured_event_types: ["message.sent", "message.read"]
      }
    }],
    [6, 400, { detail: { code: "chat_only", message: "this operation is supported only on chat-app channels" } }],
    [7, 502, { detail: { code: "upstream_error", message: "(#100) Invalid parameter" } }],
    [8, 422, {
      detail: [{ loc: ["body", "components", 0, "format"], msg: "is missing", type: "missing", input: {}, ctx: {} }]
    }],
    [9, 429, { detail: "rate limit exceeded" }],
    [10, 429, { detail: "template quota exceeded: 250 of 250 used this month" }],
    [11, 502, {
      error: "upstream_error",
      meta_code: 131047,
      meta_subcode: null,
      meta_title: "Re-engagement message",
      message: "More than 24 hours have passed",
      fbtrace_id: "AbC123"
    }]
  ])("a handler failing with error #%i answers %i with the exact SPEC body and no _tag", async (n, status, body) => {
    const response = await call(`/fail/${n}`)
    expect(response.status).toBe(status)
    expect(response.body).toStrictEqual(body)
    expect(JSON.stringify(response.body)).not.toContain("_tag")
  })

  it("a request body with an unknown field is rejected by HttpApi decoding", async () => {
    const ok = await call("/mark-read", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ channel_id: 1, message_id: "wamid.1" })
    })
    expect(ok.status).toBe(200)
    const extra = await call("/mark-read", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ channel_id: 1, message_id: "wamid.1", sneaky: true })
    })
    expect(extra.status).toBe(400)
    expect(JSON.stringify(extra.body)).toContain("sneaky")
  })

  it.effect("an HttpApiClient decodes every wire body back into the error class instance", () =>
    Effect.gen(function*() {
      const client = yield* HttpApiClient.make(Api, { baseUrl: "http://test" })
      for (const [n, expected] of failing.entries()) {
        const error = yield* Effect.flip(client.errors.fail({ path: { n } }))
        expect(error).toBeInstanceOf(expected.constructor)
        expect(error).toStrictEqual(expected)
      }
    }).pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provideService(FetchHttpClient.Fetch, (input, init) => handler(new Request(input, init)))
    )
  )
})

describe("error table", () => {
  it.each(ErrorClasses.map((cls) => [cls._tag, cls] as const))(
    "%s carries the HTTP status of its code and its wire schema the same status",
    (_tag, cls) => {
      const status = HttpApiSchema.getStatusError(cls)
      expect(HttpApiSchema.getStatusError(wire(cls))).toBe(status)
      const code = (cls as { code?: keyof typeof ErrorCodes }).code
      if (code !== undefined) expect(ErrorCodes[code]).toBe(status)
    }
  )

  it("wire(cls) returns one memoized schema per class", () => {
    expect(wire(NotFound)).toBe(wire(NotFound))
  })

  it("ValidationFailed.fromParseError turns parse paths into SPEC loc entries", () => {
    const input = { channel_id: 1, message_id: "", extra: 1 }
    const result = Schema.decodeUnknownEither(MarkRead, { errors: "all" })(input)
    if (result._tag === "Right") throw new Error("expected a failure")
    const error = ValidationFailed.fromParseError(result.left as ParseResult.ParseError, "body", input)
    expect(error.detail).toStrictEqual([
      {
        loc: ["body", "extra"],
        msg: expect.stringContaining("is unexpected"),
        type: "extra_forbidden",
        input: 1,
        ctx: {}
      },
      { loc: ["body", "message_id"], msg: "must be 1 to 255 characters", type: "value_error", input: "", ctx: {} }
    ])
  })
})

describe("422 details of union-typed fields", () => {
  const detailOf = (input: unknown) => {
    const result = Schema.decodeUnknownEither(WebhookSubscriptionCreate, { errors: "all" })(input)
    if (result._tag === "Right") throw new Error("expected a failure")
    return ValidationFailed.fromParseError(result.left as ParseResult.ParseError, "body", input).detail
  }

  it("a value outside a set of literals is one issue naming every allowed value", () => {
    const detail = detailOf({ target_url: "https://example.com/h", event_types: ["message.sent", "nope"] })
    expect(detail).toHaveLength(1)
    expect(detail[0]).toMatchObject({ loc: ["body", "event_types", 1], type: "value_error", input: "nope" })
    expect(detail[0].msg).toMatch(/^Expected "message\.received" \| "message\.sent" \| .*"template\.status_changed", actual "nope"$/)
  })

  it("a nullable field out of bounds says only the bound, not also \"Expected null\"", () => {
    expect(detailOf({ target_url: "https://example.com/h", buffer_window_seconds: 61 })).toStrictEqual([
      {
        loc: ["body", "buffer_window_seconds"],
        msg: "must be an integer between 1 and 60",
        type: "value_error",
        input: 61,
        ctx: {}
      }
    ])
  })

  it("a nullable object with a bad value inside says only that value, not also \"Expected null\" for the object", () => {
    expect(detailOf({ target_url: "https://example.com/h", custom_headers: { "X-A": 1 } })).toStrictEqual([
      { loc: ["body", "custom_headers", "X-A"], msg: "Expected string, actual 1", type: "value_error", input: 1, ctx: {} }
    ])
  })

  it("issues at different paths all stay, one each", () => {
    const detail = detailOf({ event_types: ["nope"], buffer_max_batch: 0, inactivity_minutes: 1.5 })
    expect(detail.map((d) => d.loc)).toStrictEqual([
      ["body", "target_url"],
      ["body", "event_types", 0],
      ["body", "buffer_max_batch"],
      ["body", "inactivity_minutes"]
    ])
    expect(detail[3].msg).toBe("Expected an integer, actual 1.5")
  })
})

afterAll(() => dispose())
