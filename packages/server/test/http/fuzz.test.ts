import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { PlatformApi, RATE_LIMIT_PER_MINUTE_MAX, routeKey, routeTable, Scopes } from "@platform/shared"
import { Effect, HashMap, Layer, List, Logger, LogLevel } from "effect"
import { createHmac } from "node:crypto"
import { HttpAppLive } from "../../src/server.js"
import {
  APP_SECRET,
  echoChange,
  everyMessageType,
  instagramMessage,
  messagesChange,
  qualityUpdate,
  templateStatus,
  waEnvelope,
  wamid
} from "../fixtures/meta/inbound.js"
import { TestDatabase } from "../support/database.js"
import { TestConfig, TestListener } from "../support/server.js"
import { casesFor, type FuzzRequest, operationsOf, webhookMutations } from "./fuzz-cases.js"

/*
 * Issue 39's "bad input never becomes a 500": every operation of the OpenAPI document
 * the server serves (v1 routes with a key of the route's scope, or the dashboard cookie;
 * dashboard routes with the cookie) and `/webhook/incoming` with valid signatures get a
 * bounded, seeded set of malformed and edge-case requests (fuzz-cases.ts). None may answer
 * 5xx (but the 501 an operation documents: display-name submit, SPEC §7), and every one must
 * be answered within CLIENT_TIMEOUT_MS. The server runs on the real clock (a TestClock would
 * freeze its own sleeps, such as the upstream throttle's). FUZZ_VERBOSE=1 prints each
 * operation's count, time and failures; FUZZ_ONLY=<regex> limits the operations.
 */

const SEED = 39
/**
 * The server sets no request timeout of its own (Node's `requestTimeout`, 300 s, bounds only
 * the upload); an answer later than this is taken as none: no route's work takes it.
 */
const CLIENT_TIMEOUT_MS = 10_000
/** Requests of one operation in flight at once. */
const CONCURRENCY = 4
const WEBHOOK_MUTATIONS_PER_PAYLOAD = 30

/** Every error log line of the server, to name the cause of a 5xx. */
const errorLogs: Array<string> = []
const ErrorLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ annotations, cause, logLevel, message }) => {
    if (!LogLevel.greaterThanEqual(logLevel, LogLevel.Error)) return
    const request = HashMap.get(annotations, "request_id")
    errorLogs.push(`${request._tag === "Some" ? String(request.value) : "-"} ${JSON.stringify(List.isList(message) ? List.toArray(message) : message).slice(0, 2000)} ${String(cause).slice(0, 2000)}`)
  })
)

const FuzzServer = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpAppLive),
  Layer.provideMerge(TestDatabase),
  Layer.provideMerge(TestConfig({ LOG_LEVEL: "error", UNSAFE_ALLOW_LOCAL_TARGETS: "1" })),
  Layer.provideMerge(TestListener),
  Layer.provide(ErrorLogger)
)

interface Outcome {
  readonly request: FuzzRequest
  /** The operation documents a 501 (display-name submit: SPEC §7), which is then its answer. */
  readonly documents501?: boolean
  readonly status: number
  readonly text: string
  readonly error?: string
  readonly ms: number
}

const send = async (base: string, request: FuzzRequest, credential: Record<string, string>): Promise<Outcome> => {
  const started = performance.now()
  try {
    const hasBody = request.body !== undefined && request.method !== "GET"
    const res = await fetch(base + request.path, {
      method: request.method,
      headers: { ...request.headers, ...credential },
      ...(hasBody ? { body: request.body } : {}),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS)
    })
    // The event stream stays open by design: its answer is the status line.
    const text = res.headers.get("content-type")?.startsWith("text/event-stream")
      ? (await res.body?.cancel(), "")
      : await res.text()
    return { request, status: res.status, text: text.slice(0, 500), ms: performance.now() - started }
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause
    return { request, status: 0, text: "", error: `${String(e)}${cause === undefined ? "" : ` (${String(cause)})`}`, ms: performance.now() - started }
  }
}

/** Runs `items` through `f`, `n` at a time, in order of start. */
const pool = async <A, B>(items: ReadonlyArray<A>, n: number, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const out: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }))
  return out
}

const json = async (base: string, method: string, path: string, credential: Record<string, string>, body?: unknown) => {
  const res = await fetch(base + path, {
    method,
    headers: { ...credential, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as any, headers: res.headers }
}

const cookieOf = (headers: Headers) => headers.getSetCookie().find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!

/** An account on the business plan with a key of every scope, channels and one row of each resource. */
const setUp = async (base: string) => {
  const signup = await fetch(`${base}/platform/dashboard/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "fuzz@example.com", password: "fuzz-password-39", name: "Fuzz" })
  })
  const cookie = { cookie: cookieOf(signup.headers) }
  await json(base, "POST", "/platform/dashboard/billing/plan", cookie, { plan: "business" })
  const keys = new Map<string, Record<string, string>>()
  for (const scope of Scopes) {
    const created = await json(base, "POST", "/platform/dashboard/api-keys", cookie, { name: scope, scopes: [scope], rate_limit_per_minute: RATE_LIMIT_PER_MINUTE_MAX })
    keys.set(scope, { "x-api-key": created.body.key })
  }
  const every = { "x-api-key": (await json(base, "POST", "/platform/dashboard/api-keys", cookie, { name: "all", rate_limit_per_minute: RATE_LIMIT_PER_MINUTE_MAX })).body.key as string }
  const spareKey = (await json(base, "POST", "/platform/dashboard/api-keys", cookie, { name: "spare" })).body.id as number
  const line = { phone_number_id: "106540352239039", waba_id: "102290129339039", display_phone_number: "15550139039" }
  const chat = (await json(base, "POST", "/platform/dashboard/channels/connect/chat", cookie, { code: "fuzz-code", phone_number_id: line.phone_number_id, waba_id: line.waba_id })).body
  const social = (await json(base, "POST", "/platform/dashboard/channels/connect/social", cookie, { code: "fuzz-oauth", redirect_uri: "https://app.example/callback" })).body
  const spare = (await json(base, "POST", "/platform/dashboard/channels/connect/chat", cookie, { code: "fuzz-code-2", phone_number_id: "106540352239040", waba_id: "102290129339040" })).body
  await json(base, "PATCH", `/platform/dashboard/channels/${chat.channel_id}/webhook`, cookie, { webhook_url: "http://127.0.0.1:9/raw" })
  const subscription = (await json(base, "POST", "/platform/v1/webhooks/subscriptions", every, { target_url: "http://127.0.0.1:9/fuzz" })).body
  const template = (await json(base, "POST", "/platform/v1/templates", every, { channel_id: chat.channel_id, name: "fuzz_template", language_code: "en_US", category: "utility", body_text: "Hello {{1}}", variables: ["Ana"] })).body
  // A broadcast needs its template approved: the sandbox's review callback comes a moment after the create.
  for (let i = 0; i < 100 && (await json(base, "GET", `/platform/v1/templates/${template.id}`, every)).body.meta_status !== "approved"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const broadcast = (await json(base, "POST", "/platform/v1/broadcasts", every, { name: "fuzz", channel_id: chat.channel_id, template_name: "fuzz_template", language_code: "en_US" })).body
  const sent = (await json(base, "POST", "/platform/v1/messages", every, { channel_id: chat.channel_id, to: "15551234567", type: "text", text: "hello" })).body
  const messages = (await json(base, "GET", "/platform/v1/messages?limit=1", every)).body
  const conversations = (await json(base, "GET", "/platform/v1/conversations?limit=1", every)).body
  const contacts = (await json(base, "GET", "/platform/v1/contacts?limit=1", every)).body
  const member = (await json(base, "POST", "/platform/dashboard/team", cookie, { email: "member@example.com", role: "developer", name: "Member", password: "member-password-39" })).body
  const ids: Record<string, unknown> = {
    channel_id: chat.channel_id,
    template_id: template.id,
    sub_id: subscription.id,
    broadcast_id: broadcast.id,
    message_id: messages.data?.[0]?.id,
    conversation_id: conversations.data?.[0]?.id,
    contact_id: contacts.data?.[0]?.id,
    media_id: "1479537139650973",
    delivery_id: 1,
    user_id: member.user_id
  }
  const made = { chat: chat.channel_id, social: social.social_id, spare: spare.channel_id, sent: sent.message_id, spareKey, ...ids }
  expect(Object.entries(made).filter(([, v]) => v === undefined || v === null).map(([k]) => k), "resources the setup could not make").toEqual([])
  const idOf = (name: string, template: string): string | undefined => {
    if (name === "id") return String(template.startsWith("/platform/dashboard/api-keys") ? spareKey : spare.channel_id)
    const id = ids[name]
    return id === undefined || id === null ? undefined : String(id)
  }
  return { cookie, keys, idOf, line, socialId: social.social_id as string }
}

/** The webhooks Meta could send the test's channels, valid and then mutated node by node. */
const webhookBodies = (line: { phone_number_id: string; waba_id: string; display_phone_number: string }, socialId: string) => {
  const from = "5511988887777"
  const rich = waEnvelope([{
    id: line.waba_id,
    changes: [
      messagesChange(line, {
        contacts: [{ profile: { name: "Ana" }, wa_id: from }],
        messages: everyMessageType(from).slice(0, 6),
        statuses: [{ id: wamid(), status: "delivered", timestamp: "1700000000", recipient_id: from }]
      }),
      echoChange(line, from, "echo")
    ]
  }])
  const bases = [
    rich,
    templateStatus(line.waba_id, "1234567890", "fuzz_template", "APPROVED"),
    qualityUpdate(line.waba_id, line.display_phone_number, "FLAGGED"),
    instagramMessage(socialId, "17841400000000777", "hi there")
  ]
  const text = (body: string) => waEnvelope([{ id: line.waba_id, changes: [messagesChange(line, { contacts: [{ wa_id: from }], messages: [{ from, id: wamid(), timestamp: "1", type: "text", text: { body } }] })] }])
  const value = (v: Record<string, unknown>) =>
    JSON.stringify(waEnvelope([{ id: line.waba_id, changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { phone_number_id: line.phone_number_id }, ...v } }] }]))
  const named: Array<{ label: string; body: string | Uint8Array }> = [
    { label: "text.body with a lone surrogate", body: JSON.stringify(text("a\ud800b")) },
    { label: "text.body with U+0000", body: JSON.stringify(text("a\u0000b")) },
    { label: "value.messages as an object", body: value({ messages: { from, id: wamid(), type: "text" } }) },
    { label: "value.statuses as a string", body: value({ statuses: "delivered" }) },
    { label: "value.contacts as a number", body: value({ contacts: 7, messages: [{ from, id: wamid(), timestamp: "1", type: "text", text: { body: "x" } }] }) },
    { label: "message id and from as numbers", body: value({ messages: [{ from: 5511988887777, id: 12345, timestamp: 1, type: "text", text: { body: "x" } }] }) },
    { label: "phone_number_id as a number", body: value({ metadata: { phone_number_id: Number(line.phone_number_id) } }) },
    { label: "changes as an object", body: JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: line.waba_id, changes: { field: "messages" } }] }) },
    { label: "entry as an object", body: JSON.stringify({ object: "whatsapp_business_account", entry: { id: line.waba_id } }) },
    { label: "a template update without fields", body: JSON.stringify(waEnvelope([{ id: line.waba_id, changes: [{ field: "message_template_status_update", value: {} }] }])) },
    { label: "an Instagram event without sender", body: JSON.stringify({ object: "instagram", entry: [{ id: socialId, messaging: [{ message: { mid: "m1", text: "x" } }] }] }) },
    { label: "an Instagram message whose text is an object", body: JSON.stringify({ object: "instagram", entry: [{ id: socialId, messaging: [{ sender: { id: "1" }, recipient: { id: socialId }, message: { mid: "m2", text: { a: 1 }, attachments: "x" } }] }] }) },
    { label: "nested 100,000 levels", body: `{"object":"whatsapp_business_account","entry":${"[".repeat(100_000)}${"]".repeat(100_000)}}` },
    { label: "text nested 300 levels", body: value({ messages: [{ from, id: wamid(), timestamp: "1", type: "text", text: { body: "x", deep: JSON.parse("[".repeat(300) + "]".repeat(300)) } }] }) },
    { label: "an empty body", body: "" },
    { label: "not JSON", body: "{" },
    { label: "bytes that are not UTF-8", body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) },
    { label: "JSON null", body: "null" }
  ]
  const mutated = bases.flatMap((payload, i) => webhookMutations(payload, SEED + i, WEBHOOK_MUTATIONS_PER_PAYLOAD))
  return [...named, ...mutated].map(({ body, label }) => {
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body)
    // Signed over the exact bytes sent, as Meta signs (with the app secret the test server uses).
    const signature = `sha256=${createHmac("sha256", APP_SECRET).update(bytes).digest("hex")}`
    return { label: `webhook: ${label}`, method: "POST", path: "/webhook/incoming", headers: { "content-type": "application/json", "x-hub-signature-256": signature }, body: new Uint8Array(bytes) } satisfies FuzzRequest
  })
}

/** The routes beside the document (Meta's handshake, the signed download link) and paths no route has. */
const besideTheDocument: ReadonlyArray<FuzzRequest> = [
  ...["hub.mode=subscribe&hub.verify_token=%00&hub.challenge=1", "hub.mode=subscribe&hub.verify_token=sandbox-verify-token&hub.challenge=%ED%A0%80",
    `hub.mode=subscribe&hub.verify_token=sandbox-verify-token&hub.challenge=${"9".repeat(5000)}`, "hub.mode&hub.mode=a&hub.mode=b"]
    .map((query) => ({ label: `handshake ${query.slice(0, 40)}`, method: "GET", path: `/webhook/incoming?${query}`, headers: {} })),
  ...["x", "%00", "%ED%A0%80", "a.b.c.d.e", "1.1.9999999999999.m.sig", "x".repeat(5000)]
    .map((token) => ({ label: `download token ${token.slice(0, 20)}`, method: "GET", path: `/platform/v1/media-downloads/${token}`, headers: {} })),
  { label: "no such route", method: "GET", path: "/platform/v1/nope", headers: {} },
  { label: "a method the route does not take", method: "PUT", path: "/platform/v1/messages", headers: { "content-type": "application/json" }, body: "{}" },
  { label: "webhook without a signature", method: "POST", path: "/webhook/incoming", headers: { "content-type": "application/json" }, body: "{}" }
]

/** The v1 routes that take no credential: the signed media links (the token is the credential). */
const CREDENTIAL_FREE_V1: ReadonlySet<string> = new Set(["GET /platform/v1/media-downloads/{token}"])

layer(FuzzServer, { timeout: 240_000, excludeTestServices: true })("fuzz", (it) => {
  it.effect("no request to any route of the OpenAPI document or /webhook/incoming answers 5xx or goes unanswered", () =>
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const base = server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : ""
      const outcomes = yield* Effect.promise(async () => {
        const doc = await (await fetch(`${base}/platform/v1/openapi.json`)).json()
        const setup = await setUp(base)
        const scopes = new Map(routeTable(PlatformApi).map((r) => [routeKey(r.method, r.path), r]))
        const operations = operationsOf(doc)
        expect(operations.length).toBeGreaterThan(70)
        // The session's own end goes last, so that every other dashboard route still has it.
        const ordered = [...operations].sort((a, b) => Number(a.template.endsWith("/logout")) - Number(b.template.endsWith("/logout")))
        // A v1 route gets the key of its own scope (every third request the cookie, where the route
        // takes it), so each request reaches the handler; dashboard routes get the session.
        const credentialFor = (template: string, method: string, n: number): Record<string, string> => {
          const route = scopes.get(routeKey(method, template.replace(/\{([^}]+)\}/g, ":$1")))
          if (route !== undefined) return route.cookie && n % 3 === 2 ? setup.cookie : setup.keys.get(route.scope!)!
          expect(template.startsWith("/platform/v1/") && !CREDENTIAL_FREE_V1.has(`${method} ${template}`), `${method} ${template} is a v1 route without a scope`).toBe(false)
          return template.startsWith("/platform/dashboard/") ? setup.cookie : {}
        }
        const all: Array<Outcome> = []
        const w0 = performance.now()
        all.push(...await pool([...webhookBodies(setup.line, setup.socialId), ...besideTheDocument], CONCURRENCY, (r) => send(base, r, {})))
        if (process.env.FUZZ_VERBOSE) {
          console.log(`webhooks in ${Math.round(performance.now() - w0)} ms`)
          for (const o of all) if (o.status === 0 || o.status >= 500) console.log(`  ${o.status} [${o.request.label}] ${o.error ?? o.text.slice(0, 150)}`)
        }
        for (const operation of ordered.filter((o) => new RegExp(process.env.FUZZ_ONLY ?? "").test(`${o.method} ${o.template}`))) {
          const cases = casesFor(doc, operation, { seed: SEED, ids: setup.idOf })
          const t0 = performance.now()
          const documents501 = operation.spec.responses?.["501"] !== undefined
          all.push(...await pool(cases.map((c, n) => [c, n] as const), CONCURRENCY, async ([c, n]) => ({
            ...await send(base, c, credentialFor(operation.template, operation.method, n)),
            documents501
          })))
          if (process.env.FUZZ_VERBOSE) {
            console.log(`${operation.method} ${operation.template}: ${cases.length} in ${Math.round(performance.now() - t0)} ms`)
            for (const o of all.slice(-cases.length)) if (o.status === 0 || o.status >= 500) console.log(`  ${o.status} [${o.request.label}] ${o.error ?? o.text.slice(0, 150)}`)
          }
        }
        return all
      })
      const failed = outcomes.filter((o) => o.status >= 500 && !(o.status === 501 && o.documents501 === true))
      const unanswered = outcomes.filter((o) => o.status === 0)
      const slowest = outcomes.reduce((a, b) => (b.ms > a.ms ? b : a))
      console.log(`fuzz: ${outcomes.length} requests, ${failed.length} answered 5xx, ${unanswered.length} unanswered within ${CLIENT_TIMEOUT_MS} ms; slowest ${Math.round(slowest.ms)} ms (${slowest.request.method} ${slowest.request.path.slice(0, 80)}: ${slowest.request.label})`)
      const show = (o: Outcome) => `${o.request.method} ${o.request.path.slice(0, 120)} [${o.request.label}] -> ${o.status} ${o.error ?? o.text.slice(0, 200)}`
      expect([...failed, ...unanswered].map(show), errorLogs.slice(0, 20).join("\n")).toEqual([])
    }), 180_000)
})
