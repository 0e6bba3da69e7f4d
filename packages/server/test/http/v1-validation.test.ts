import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { JSON_BODY_MAX_BYTES } from "../../src/http/body-limit.js"
import { baseUrl } from "../support/server.js"
import { AuthTestServer, connectChat, createKey, request, signup } from "../auth/support.js"

/** Issue 2's 422 contract, proven on real, authenticated v1 routes. */
layer(AuthTestServer(), { timeout: 60_000 })("v1 request validation", (it) => {
  const setup = Effect.gen(function*() {
    const dev = yield* signup()
    const { key } = yield* createKey(dev)
    const channel = (yield* connectChat(dev)).body.channel_id as number
    return { key, channel }
  })

  it.effect("a body that is not JSON is 422 with loc [\"body\"]", () =>
    Effect.gen(function*() {
      const { channel, key } = yield* setup
      const reply = yield* request("PATCH", `/platform/v1/channels/${channel}/inbound`, { key, rawBody: "{\"enabled\": tru" })
      expect(reply.status).toBe(422)
      expect(reply.body).toEqual({
        detail: [{ loc: ["body"], msg: expect.any(String), type: "json_invalid", input: null, ctx: {} }]
      })
    }))

  // curl -d without -H sends application/x-www-form-urlencoded; the others came in as bytes the
  // 422 could not read again (the request never got an answer).
  // A multipart body was read as a form whatever the route (a 500 without a boundary, no answer when cut short).
  it.effect.each([
    "application/x-www-form-urlencoded",
    "application/octet-stream",
    "application/xml",
    "text/plain",
    "multipart/form-data",
    "multipart/form-data; boundary=b"
  ])("a body sent as %s that does not decode is 422 saying the body must be JSON", (contentType) =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("POST", "/platform/v1/webhooks/subscriptions", {
        key,
        rawBody: JSON.stringify({ target_url: "https://example.com/hook" }),
        headers: { "content-type": contentType }
      })
      expect(reply.status).toBe(422)
      expect(reply.body).toEqual({
        detail: [{
          loc: ["body"],
          msg: `The request body must be JSON, sent with Content-Type: application/json (it was ${contentType})`,
          type: "content_type",
          input: null,
          ctx: {}
        }]
      })
    }))

  // Number() read these as numbers: ?limit=0x10 was 16, ?limit=1e2 100, /deliveries/0x10 delivery 16.
  it.effect.each([
    ["/platform/v1/webhooks/deliveries?limit=0x10", ["query", "limit"], "0x10"],
    ["/platform/v1/webhooks/deliveries?limit=1e2", ["query", "limit"], "1e2"],
    ["/platform/v1/webhooks/deliveries?limit=%2010", ["query", "limit"], " 10"],
    ["/platform/v1/webhooks/deliveries?limit=", ["query", "limit"], ""],
    ["/platform/v1/webhooks/deliveries?subscription_id=1e2", ["query", "subscription_id"], "1e2"],
    ["/platform/v1/webhooks/deliveries?channel_id=0b1", ["query", "channel_id"], "0b1"],
    ["/platform/v1/webhooks/subscriptions?limit=+5", ["query", "limit"], " 5"],
    ["/platform/v1/webhooks/deliveries/0x10", ["path", "delivery_id"], "0x10"],
    ["/platform/v1/webhooks/subscriptions/1e1", ["path", "sub_id"], "1e1"],
    ["/platform/v1/media/m1/url?channel_id=0x1", ["query", "channel_id"], "0x1"]
  ] as const)("GET %s is 422: integers in a URL are decimal digits", ([path, loc, input]) =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("GET", path, { key })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body).toEqual({
        detail: [{ loc: [...loc], msg: "must be an integer in decimal digits", type: "value_error", input, ctx: {} }]
      })
    }))

  it.effect("a parameter given twice is 422 with both values as its input, not the last one alone", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("GET", "/platform/v1/webhooks/deliveries?limit=5&limit=6", { key })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toEqual([
        { loc: ["query", "limit"], msg: "Expected string, actual [\"5\",\"6\"]", type: "value_error", input: ["5", "6"], ctx: {} }
      ])
    }))

  it.effect.each([
    ["/platform/v1/webhooks/deliveries?limt=5", "limt"],
    ["/platform/v1/webhooks/subscriptions?limit=5&sort=asc", "sort"],
    ["/platform/v1/channels?kind=chat", "kind"],
    ["/platform/v1/webhooks/deliveries/1?include=full_envelope&expand=attempts", "expand"]
  ] as const)("a query parameter the route does not take is 422 naming it (SPEC §4: unknown input), not ignored: %s", ([path, name]) =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("GET", path, { key })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ["query", name], type: "extra_forbidden" })])
    }))

  it.effect.each([
    ["GET", "/platform/v1/messages/1?expand=contact", "expand", undefined],
    ["GET", "/platform/v1/contacts/1?fields=phone", "fields", undefined],
    ["PATCH", "/platform/v1/conversations/1?notify=1", "notify", { status: "ended" }],
    ["POST", "/platform/v1/messages?dry_run=1", "dry_run", { channel_id: 1, to: "15551234567", type: "text", text: "x" }],
    ["GET", "/platform/v1/templates/1?include=components", "include", undefined],
    ["POST", "/platform/v1/templates/sync?force=1", "force", { channel_id: 1 }],
    ["POST", "/platform/v1/broadcasts/1/send?at=now", "at", undefined],
    ["DELETE", "/platform/v1/webhooks/subscriptions/1?cascade=1", "cascade", undefined],
    ["POST", "/platform/v1/webhooks/deliveries/1/redeliver?force=1", "force", undefined]
  ] as const)("a route that takes no query parameter answers one with 422 naming it, before acting: %s %s", ([method, path, name, body]) =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request(method, path, body === undefined ? { key } : { key, body })
      expect(reply.status, reply.text).toBe(422)
      expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ["query", name], type: "extra_forbidden" })])
    }))

  it.effect("decimal integers in a URL still decode: ?limit=007 is 7, a negative id is just not found", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const listed = yield* request("GET", "/platform/v1/webhooks/deliveries?limit=007&subscription_id=-1", { key })
      expect(listed.status, listed.text).toBe(200)
      expect((yield* request("GET", "/platform/v1/webhooks/deliveries/-1", { key })).status).toBe(404)
    }))

  // Refused before it is read: only the upload routes take forms.
  it.effect("a multipart body that cannot be parsed is 422, not 500", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("POST", "/platform/v1/webhooks/subscriptions", {
        key,
        rawBody: "garbage",
        headers: { "content-type": "multipart/form-data; boundary=x" }
      })
      expect(reply.status).toBe(422)
      expect(reply.body).toEqual({
        detail: [{
          loc: ["body"],
          msg: "The request body must be JSON, sent with Content-Type: application/json (it was multipart/form-data; boundary=x)",
          type: "content_type",
          input: null,
          ctx: {}
        }]
      })
    }))

  // Postgres text cannot hold U+0000: these were 500s (the insert failed after validation).
  it.effect.each([
    {
      case: "a body field",
      method: "POST",
      path: "/platform/v1/webhooks/subscriptions",
      body: { target_url: "https://93.184.215.14/hook", description: "a\u0000b" },
      loc: ["body", "description"],
      input: "a\u0000b"
    },
    {
      case: "a nested body value",
      method: "POST",
      path: "/platform/v1/webhooks/subscriptions",
      body: { target_url: "https://93.184.215.14/hook", event_types: ["message.sent", "\u0000"] },
      loc: ["body", "event_types", 1],
      input: "\u0000"
    },
    { case: "a query parameter", method: "GET", path: "/platform/v1/webhooks/deliveries?event_type=a%00b", loc: ["query", "event_type"], input: "a\u0000b" },
    {
      case: "a path parameter",
      method: "PATCH",
      path: "/platform/v1/conversations/1%00",
      body: { status: "ended" },
      loc: ["path", "conversation_id"],
      input: "1\u0000"
    }
  ])("U+0000 in $case is 422 at its loc, never 500", ({ body, input, loc, method, path }) =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request(method, path, { key, ...(body === undefined ? {} : { body }) })
      expect(reply.status).toBe(422)
      expect(reply.body).toEqual({
        detail: [{ loc, msg: "must not contain the character U+0000", type: "value_error", input, ctx: {} }]
      })
    }))

  it.effect("U+0000 without a key is still 401: authentication comes first", () =>
    Effect.gen(function*() {
      const reply = yield* request("GET", "/platform/v1/webhooks/deliveries?event_type=%00")
      expect(reply.status).toBe(401)
    }))

  it.effect("a JSON body over 1 MiB is 413 before it is read; one just under is read and validated", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const padded = (bytes: number) => {
        const base = JSON.stringify({ target_url: "https://93.184.215.14/hook", description: "" })
        return base.replace('"description":""', `"description":"${"d".repeat(bytes - base.length)}"`)
      }
      const over = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, rawBody: padded(JSON_BODY_MAX_BYTES + 1) })
      expect(over.status).toBe(413)
      expect(over.body).toEqual({
        detail: {
          code: "payload_too_large",
          message: `The request body is larger than ${JSON_BODY_MAX_BYTES} bytes`,
          max_bytes: JSON_BODY_MAX_BYTES
        }
      })
      const under = yield* request("POST", "/platform/v1/webhooks/subscriptions", { key, rawBody: padded(JSON_BODY_MAX_BYTES) })
      expect(under.status).toBe(422)
      expect(under.body.detail[0].loc).toEqual(["body", "description"])
    }))

  // Without a declared length the reader stops at the limit and the connection is dropped
  // (the sender is still uploading); the body is never held in memory and nothing is written.
  it.effect("a body sent without a length is not read past 1 MiB: refused, nothing written, the server answers on", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const base = yield* baseUrl
      const chunk = new TextEncoder().encode(`{"target_url":"https://93.184.215.14/hook","description":"${"d".repeat(64 * 1024)}`)
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          if (sent > 4 * JSON_BODY_MAX_BYTES) return controller.close()
          sent += chunk.length
          controller.enqueue(chunk)
        }
      })
      const reply = yield* Effect.promise(() =>
        fetch(`${base}/platform/v1/webhooks/subscriptions`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body,
          duplex: "half"
        } as RequestInit).then(async (r) => ({ status: r.status, body: await r.json() }), (e: unknown) => ({ status: 0, body: String(e) }))
      )
      // Read in full it would be a 422 (the JSON never ends); here it is not read to the end.
      expect([0, 413]).toContain(reply.status)
      const list = yield* request("GET", "/platform/v1/webhooks/subscriptions", { key })
      expect(list.status).toBe(200)
      expect(list.body.data).toEqual([])
    }))

  it.effect.each([
    { case: "a field of the wrong type", body: { enabled: "yes" }, loc: ["body", "enabled"], input: "yes" },
    { case: "a missing field", body: {}, loc: ["body", "enabled"], input: {} },
    { case: "an unknown field", body: { enabled: true, extra: 1 }, loc: ["body", "extra"], input: 1 }
  ])("$case in the body is 422 at its loc", ({ body, input, loc }) =>
    Effect.gen(function*() {
      const { channel, key } = yield* setup
      const reply = yield* request("PATCH", `/platform/v1/channels/${channel}/inbound`, { key, body })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toHaveLength(1)
      expect(reply.body.detail[0]).toMatchObject({ loc, input, msg: expect.any(String), type: expect.any(String), ctx: {} })
    }))

  it.effect("a path parameter that is not an integer is 422 at [\"path\", \"channel_id\"]", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("PATCH", "/platform/v1/channels/abc/inbound", { key, body: { enabled: true } })
      expect(reply.status).toBe(422)
      expect(reply.body.detail[0]).toMatchObject({ loc: ["path", "channel_id"], input: "abc" })
    }))

  it.effect("a query parameter outside its values is 422 at [\"query\", \"type\"]", () =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("GET", "/platform/v1/channels?type=fax", { key })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toEqual([
        { loc: ["query", "type"], msg: "Expected \"chat\" | \"social\", actual \"fax\"", type: "value_error", input: "fax", ctx: {} }
      ])
    }))

  it.effect.each([
    { case: "out of bounds", limit: "0", msg: "must be an integer between 1 and 200" },
    { case: "not a number", limit: "abc", msg: "must be an integer in decimal digits" }
  ])("an optional query parameter $case is one issue saying why, without \"Expected undefined\"", ({ limit, msg }) =>
    Effect.gen(function*() {
      const { key } = yield* setup
      const reply = yield* request("GET", `/platform/v1/webhooks/subscriptions?limit=${limit}`, { key })
      expect(reply.status).toBe(422)
      expect(reply.body.detail).toEqual([{ loc: ["query", "limit"], msg, type: "value_error", input: limit, ctx: {} }])
    }))

  it.effect("a valid request passes validation and the kill-switch applies", () =>
    Effect.gen(function*() {
      const { channel, key } = yield* setup
      const reply = yield* request("PATCH", `/platform/v1/channels/${channel}/inbound`, { key, body: { enabled: false } })
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ channel_id: channel, inbound_enabled: false })
    }))
})
