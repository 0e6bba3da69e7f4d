import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Schema, Stream, SubscriptionRef, TestClock, TestContext } from "effect"
import { http, HttpResponse } from "msw"
import { TemplateCreate } from "@platform/shared"
import { Templates } from "../../src/templates/templates.js"
import { baseUrl } from "../auth/support.js"
import { GRAPH, makeRecorder, META_RESPONSES, successHandlers, VERSION } from "../fixtures/meta/index.js"
import { signedBody, waEnvelope } from "../fixtures/meta/inbound.js"
import { MessagingTestServer, request, sql } from "../messages/support.js"
import { graphDeveloper, graphMock, once } from "../support/graph-mock.js"
import { TEMPLATE_SWEEP_INTERVAL, templateSweep } from "../../src/templates/template-sweep.js"

// Only Graph traffic is mocked; the test's own requests to the loopback server pass through.
const msw = graphMock("bypass")

const TOKEN = "EAAGtemplatesToken0123456789abcdef"
const WABA = "102290129340398"

let counter = 0
const uniqueName = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${counter++}`

/** A developer whose chat channel has a phone number of its own (the sync tests make more than one). */
const setupMeta = (label: string) =>
  Effect.suspend(() => graphDeveloper(label, { token: TOKEN, phone_number_id: String(106540352240000 + counter++), waba_id: WABA }))

const ctx = once(setupMeta("tpl-msw"))

/** A stored template the upstream already reviewed, as a create followed by its approval callback leaves it. */
const approvedRow = (accountId: number, channelId: number, metaId: string) =>
  Effect.gen(function*() {
    const q = yield* sql
    const [row] = yield* q<{ id: number }>`
      insert into templates (developer_account_id, platform_channel_id, name, language_code, category, body_text, components,
        meta_status, meta_category, meta_template_id)
      values (${accountId}, ${channelId}, ${uniqueName("row")}, 'en_US', 'utility', 'Hi', ${JSON.stringify([{ type: "BODY", text: "Hi" }])}::jsonb,
        'approved', 'utility', ${metaId})
      returning id`
    return row!.id
  })

/** Posts Meta's signed template review callback to the service and waits for its answer (given after the commit). */
const reviewCallback = async (base: string, t: { readonly id: string; readonly name: string; readonly event: string }) => {
  const signed = signedBody(waEnvelope([{
    id: WABA,
    changes: [{
      field: "message_template_status_update",
      value: { event: t.event, message_template_id: Number(t.id), message_template_name: t.name, message_template_language: "en_US", reason: "NONE" }
    }]
  }]))
  const res = await fetch(`${base}/webhook/incoming`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": signed.signature },
    body: signed.body
  })
  await res.text()
}

/** Signals a fiber's interruption at once, without waiting for it (the caller hanging up). */
const interruptNow = (fiber: Fiber.RuntimeFiber<unknown, unknown>) =>
  Effect.fiberIdWith((id) => Effect.sync(() => fiber.unsafeInterruptAsFork(id)))


/** Meta's `GET /{waba}/message_templates`, filtered by `name` as Meta does. */
const listed = (templates: ReadonlyArray<Record<string, unknown>>, asked: Array<string | null> = []) =>
  http.get(`${GRAPH}/${VERSION}/:waba/message_templates`, ({ request: r }) => {
    const name = new URL(r.url).searchParams.get("name")
    asked.push(name)
    return HttpResponse.json({ data: templates.filter((t) => name === null || t["name"] === name) })
  })

/** A Meta endpoint whose first call answers only once the test lets it; later calls answer at once. */
const heldOnce = (body: Record<string, unknown>) => {
  let entered!: () => void
  let release!: () => void
  const inside = new Promise<void>((r) => (entered = r))
  const released = new Promise<void>((r) => (release = r))
  let calls = 0
  const answer = async () => {
    if (calls++ === 0) {
      entered()
      await released
    }
    return HttpResponse.json(body)
  }
  return { inside, release, answer, calls: () => calls }
}

/**
 * The whole row as it stands now, and the statement that puts it back: all a process that
 * dies at this point leaves behind is what the database holds.
 */
const crashPoint = (id: number) =>
  Effect.gen(function*() {
    const q = yield* sql
    const [saved] = yield* q<{ row: Record<string, unknown> }>`select to_jsonb(t) - 'id' as row from templates t where id = ${id}`
    const columns = q.unsafe(Object.keys(saved!.row).join(", "))
    return q`update templates set (${columns}) = (
      select ${columns} from jsonb_populate_record(null::templates, ${JSON.stringify(saved!.row)}::jsonb)) where id = ${id}`
  })

/** Runs `effect` on a TestClock set to `ms`. */
const at = (ms: number) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  TestClock.setTime(ms).pipe(Effect.zipRight(effect), Effect.provide(TestContext.TestContext))

const HELLO = [{ type: "BODY" as const, text: "Hello" }]

/**
 * A create whose process dies after its insert, while Meta answers: all it leaves is its pending
 * row, whose created_at is then set back to `bornAt` (the create ran then).
 */
const deadCreate = (accountId: number, channelId: number, name: string, bornAt: number) =>
  Effect.gen(function*() {
    const templates = yield* Templates
    const q = yield* sql
    const submit = heldOnce({ id: "444000999", status: "PENDING", category: "UTILITY" })
    msw.use(http.post(`${GRAPH}/${VERSION}/:waba/message_templates`, submit.answer))
    const input = Schema.decodeUnknownSync(TemplateCreate)({ channel_id: channelId, name, language_code: "en_US", category: "utility", components: HELLO })
    const creating = yield* Effect.fork(at(bornAt)(templates.create(accountId, input)))
    yield* Effect.promise(() => submit.inside)
    const [{ id }] = (yield* q<{ id: number }>`select id from templates where name = ${name}`) as [{ id: number }]
    const crashed = yield* crashPoint(id)
    submit.release()
    yield* Fiber.join(creating)
    yield* crashed
    yield* q`update templates set created_at = ${new Date(bornAt)} where id = ${id}`
    return id
  })

const graphError = (status: number, error: Record<string, unknown>) => () => HttpResponse.json({ error }, { status })

layer(MessagingTestServer({ UPSTREAM: "meta", META_GRAPH_URL: GRAPH, META_GRAPH_VERSION: VERSION }), {
  timeout: 120_000,
  excludeTestServices: true
})("templates against Meta's Graph API (msw)", (it) => {
  it.effect("create posts Meta's template shape to the WABA with the channel's token and keeps Meta's id and status", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const rec = makeRecorder()
      msw.use(...successHandlers(rec))
      const name = uniqueName("created")
      const reply = yield* request("POST", "/platform/v1/templates", {
        key: s.key,
        body: { channel_id: s.chat, name, language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }], parameter_format: "POSITIONAL" }
      })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toMatchObject({ meta_template_id: META_RESPONSES.templateCreated.id, meta_status: "pending", meta_category: "utility" })
      expect(rec.calls).toHaveLength(1)
      expect(rec.calls[0]!.url).toBe(`${GRAPH}/${VERSION}/${WABA}/message_templates`)
      expect(rec.calls[0]!.authorization).toBe(`Bearer ${TOKEN}`)
      expect(JSON.parse(rec.calls[0]!.body)).toEqual({
        name,
        language: "en_US",
        category: "UTILITY",
        components: [{ type: "BODY", text: "Hi" }],
        parameter_format: "POSITIONAL"
      })
    }))

  it.effect("a create Meta fails is a 502 upstream_error with Meta's text, and no row is stored", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      msw.use(http.post(`${GRAPH}/${VERSION}/:waba/message_templates`, graphError(500, { message: "An unknown error occurred", type: "OAuthException", code: 1 })))
      const name = uniqueName("failed")
      const reply = yield* request("POST", "/platform/v1/templates", {
        key: s.key,
        body: { channel_id: s.chat, name, language_code: "en_US", category: "utility", body_text: "Hi" }
      })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.body).toEqual({
        detail: { code: "upstream_error", message: "An unknown error occurred", error: "server", meta_code: 1, meta_subcode: null, meta_title: "API Unknown", fbtrace_id: null }
      })
      const q = yield* sql
      expect((yield* q`select 1 from templates where name = ${name}`).length).toBe(0)
    }))

  it.effect("a review callback that arrives before Meta's answer to the create or the edit is kept: the row is approved, not pending", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const base = yield* baseUrl
      const name = uniqueName("fast")
      msw.use(http.post(`${GRAPH}/${VERSION}/:waba/message_templates`, async () => {
        await reviewCallback(base, { id: "999000111", name, event: "APPROVED" })
        return HttpResponse.json({ id: "999000111", status: "PENDING", category: "UTILITY" })
      }))
      const created = yield* request("POST", "/platform/v1/templates", {
        key: s.key,
        body: { channel_id: s.chat, name, language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }] }
      })
      expect(created.status, created.text).toBe(200)
      expect(created.body).toMatchObject({ meta_status: "approved", meta_template_id: "999000111", meta_category: "utility" })

      msw.use(http.post(`${GRAPH}/${VERSION}/999000111`, async () => {
        await reviewCallback(base, { id: "999000111", name, event: "APPROVED" })
        return HttpResponse.json({ success: true })
      }))
      const edited = yield* request("PATCH", `/platform/v1/templates/${created.body.id}`, { key: s.key, body: { components: [{ type: "BODY", text: "Hello" }] } })
      expect(edited.status, edited.text).toBe(200)
      expect(edited.body).toMatchObject({ meta_status: "approved", components: [{ type: "BODY", text: "Hello" }] })
      const q = yield* sql
      const events = yield* q<{ n: number }>`select count(*)::int as n from events
        where event_type = 'template.status_changed' and developer_account_id = ${s.dev.accountId}`
      expect(events[0]!.n).toBe(2)
    }))

  it.effect("a create or an edit whose caller hangs up while Meta is answering still finishes: the row has Meta's id, or the new components", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const templates = yield* Templates
      const q = yield* sql
      /** A Meta endpoint that answers only once the test lets it (or once the call is abandoned). */
      const held = () => {
        let entered!: () => void
        let release!: () => void
        const inside = new Promise<void>((r) => (entered = r))
        const released = new Promise<void>((r) => (release = r))
        const answer = (body: Record<string, unknown>) => async ({ request: r }: { request: Request }) => {
          entered()
          await Promise.race([released, new Promise((r2) => r.signal.addEventListener("abort", r2))])
          return HttpResponse.json(body)
        }
        return { inside, release, answer }
      }

      const name = uniqueName("hangup")
      const create = held()
      msw.use(http.post(`${GRAPH}/${VERSION}/:waba/message_templates`, create.answer({ id: "888000111", status: "PENDING", category: "UTILITY" })))
      const input = Schema.decodeUnknownSync(TemplateCreate)({
        channel_id: s.chat, name, language_code: "en_US", category: "utility", components: [{ type: "BODY", text: "Hi" }]
      })
      const creating = yield* Effect.fork(templates.create(s.dev.accountId, input))
      yield* Effect.promise(() => create.inside)
      yield* interruptNow(creating)
      create.release()
      expect(Exit.isInterrupted(yield* Fiber.await(creating))).toBe(true)
      const [created] = yield* q<{ meta_status: string; meta_template_id: string | null }>`
        select meta_status, meta_template_id from templates where name = ${name}`
      expect(created).toEqual({ meta_status: "pending", meta_template_id: "888000111" })

      const id = yield* approvedRow(s.dev.accountId, s.chat, "888000222")
      const edit = held()
      msw.use(http.post(`${GRAPH}/${VERSION}/888000222`, edit.answer({ success: true })))
      const editing = yield* Effect.fork(templates.update(s.dev.accountId, id, { components: [{ type: "BODY", text: "Hello" }] }))
      yield* Effect.promise(() => edit.inside)
      yield* interruptNow(editing)
      edit.release()
      expect(Exit.isInterrupted(yield* Fiber.await(editing))).toBe(true)
      const [edited] = yield* q<{ meta_status: string; components: unknown }>`select meta_status, components from templates where id = ${id}`
      expect(edited).toEqual({ meta_status: "pending", components: [{ type: "BODY", text: "Hello" }] })
    }))

  it.effect("sync follows Meta's after cursor (never the next URL with its token) and is idempotent", () =>
    Effect.gen(function*() {
      const s = yield* setupMeta("tpl-msw-sync")
      const rec = makeRecorder()
      msw.use(...successHandlers(rec))
      const sync = () => request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: s.chat } })
      const first = yield* sync()
      expect(first.status, first.text).toBe(200)
      expect(first.body).toEqual({ imported: 2, updated: 0, skipped: 0, total: 2 })
      expect(rec.calls.map((c) => new URL(c.url).searchParams.get("after"))).toEqual([null, "MjQZD"])
      expect(rec.calls.every((c) => !c.url.includes("EAAGleakyNextToken") && c.authorization === `Bearer ${TOKEN}`)).toBe(true)
      const second = yield* sync()
      expect(second.body).toEqual({ imported: 0, updated: 0, skipped: 2, total: 2 })
      const q = yield* sql
      const rows = yield* q<any>`select name, language_code, meta_status, meta_template_id, meta_rejection_reason from templates
        where platform_channel_id = ${s.chat} order by name`
      expect(rows).toEqual([
        { name: "order_update", language_code: "en_US", meta_status: "approved", meta_template_id: "1252715608684590", meta_rejection_reason: null },
        { name: "promo", language_code: "de", meta_status: "rejected", meta_template_id: "1252715608684591", meta_rejection_reason: "INVALID_FORMAT" }
      ])
    }))

  it.effect("a sync Meta refuses is a 502 whose message is Meta's text without the channel token", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      msw.use(http.get(`${GRAPH}/${VERSION}/:waba/message_templates`, graphError(401, {
        message: `Error validating access token: the token ${TOKEN} has expired`,
        type: "OAuthException",
        code: 190,
        fbtrace_id: "AfbtraceSync"
      })))
      const reply = yield* request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: s.chat } })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.body.detail).toMatchObject({ code: "upstream_error", meta_code: 190, fbtrace_id: "AfbtraceSync" })
      expect(reply.body.detail.message).toMatch(/^Error validating access token/)
      expect(reply.text).not.toContain(TOKEN)
      expect(reply.text).not.toContain(TOKEN.slice(4, 20))
    }))

  it.effect("PATCH edits the template at /{template_id}; Meta refusing the edit is 200 with the row rejected, a Meta outage a 502 that changes nothing", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const rec = makeRecorder()
      const id = yield* approvedRow(s.dev.accountId, s.chat, "777000111")
      msw.use(http.post(`${GRAPH}/${VERSION}/777000111`, async ({ request: r }) => {
        await rec.record(r)
        return HttpResponse.json({ success: true })
      }))
      const components = [{ type: "BODY", text: "Hello" }]
      const edited = yield* request("PATCH", `/platform/v1/templates/${id}`, { key: s.key, body: { components } })
      expect(edited.status, edited.text).toBe(200)
      expect(edited.body).toMatchObject({ meta_status: "pending", components, meta_template_id: "777000111" })
      expect(rec.calls).toHaveLength(1)
      expect(rec.calls[0]!.authorization).toBe(`Bearer ${TOKEN}`)
      expect(JSON.parse(rec.calls[0]!.body)).toEqual({ components })

      const refusedId = yield* approvedRow(s.dev.accountId, s.chat, "777000222")
      msw.use(http.post(`${GRAPH}/${VERSION}/777000222`, graphError(400, {
        message: "Invalid parameter",
        type: "OAuthException",
        code: 100,
        error_subcode: 2388023,
        error_user_title: "Message template can't be edited",
        error_user_msg: "This template has been edited too many times."
      })))
      const refused = yield* request("PATCH", `/platform/v1/templates/${refusedId}`, { key: s.key, body: { components } })
      expect(refused.status, refused.text).toBe(200)
      expect(refused.body).toMatchObject({
        id: refusedId,
        meta_status: "rejected",
        meta_rejection_reason: "Message template can't be edited: Invalid parameter"
      })

      const outageId = yield* approvedRow(s.dev.accountId, s.chat, "777000333")
      msw.use(http.post(`${GRAPH}/${VERSION}/777000333`, graphError(503, { message: "Service temporarily unavailable", type: "OAuthException", code: 2 })))
      const outage = yield* request("PATCH", `/platform/v1/templates/${outageId}`, { key: s.key, body: { components } })
      expect(outage.status, outage.text).toBe(502)
      expect(outage.body).toEqual({
        detail: { code: "upstream_error", message: "Service temporarily unavailable", error: "server", meta_code: 2, meta_subcode: null, meta_title: "API Service", fbtrace_id: null }
      })
      const q = yield* sql
      const [row] = yield* q<{ meta_status: string; components: unknown }>`select meta_status, components from templates where id = ${outageId}`
      expect(row).toEqual({ meta_status: "approved", components: [{ type: "BODY", text: "Hi" }] })
    }))

  it.effect("a PATCH whose process dies while Meta answers keeps the template 409 for 2 minutes; then the edit sweep writes Meta's status and PATCH is accepted again", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const templates = yield* Templates
      const q = yield* sql
      const start = Date.now()
      // Meta got the edit of `reached` (and approved it); the edit of `lost` never reached Meta, which no longer lists it.
      const reached = yield* approvedRow(s.dev.accountId, s.chat, "555000111")
      const lost = yield* approvedRow(s.dev.accountId, s.chat, "555000222")
      const nameOf = (id: number) => q<{ name: string }>`select name from templates where id = ${id}`.pipe(Effect.map(([r]) => r!.name))
      const rowOf = (id: number) =>
        q<{ meta_status: string; components: unknown }>`select meta_status, components from templates where id = ${id}`.pipe(Effect.map(([r]) => r))
      for (const [id, metaId] of [[reached, "555000111"], [lost, "555000222"]] as const) {
        const edit = heldOnce({ success: true })
        msw.use(http.post(`${GRAPH}/${VERSION}/${metaId}`, edit.answer))
        const editing = yield* Effect.fork(at(start)(templates.update(s.dev.accountId, id, { components: HELLO })))
        yield* Effect.promise(() => edit.inside)
        const crashed = yield* crashPoint(id)
        const live = yield* request("PATCH", `/platform/v1/templates/${id}`, { key: s.key, body: { components: HELLO } })
        expect(live.status, live.text).toBe(409)
        expect(live.body.detail).toMatchObject({ code: "status_locked", status: "pending" })
        edit.release()
        yield* Fiber.join(editing)
        yield* crashed
      }
      expect(yield* rowOf(reached)).toEqual({ meta_status: "pending", components: [{ type: "BODY", text: "Hi" }] })

      const asked: Array<string | null> = []
      msw.use(listed([{ id: "555000111", name: yield* nameOf(reached), language: "en_US", status: "APPROVED", category: "UTILITY", components: HELLO }], asked))
      yield* at(start + 119_000)(templates.sweepStale())
      for (const id of [reached, lost]) {
        expect((yield* rowOf(id))!.meta_status).toBe("pending")
        const locked = yield* request("PATCH", `/platform/v1/templates/${id}`, { key: s.key, body: { components: HELLO } })
        expect(locked.status, locked.text).toBe(409)
      }

      expect(asked).toEqual([])

      // Two processes sweeping at once: each dead edit is taken by one of them and Meta asked once about it.
      const taken = yield* at(start + 120_000)(Effect.all([templates.sweepStale(), templates.sweepStale()], { concurrency: 2 }))
      expect(taken[0] + taken[1]).toBe(2)
      expect(asked.sort()).toEqual([yield* nameOf(reached), yield* nameOf(lost)].sort())
      expect(yield* rowOf(reached)).toEqual({ meta_status: "approved", components: HELLO })
      expect(yield* rowOf(lost)).toEqual({ meta_status: "approved", components: [{ type: "BODY", text: "Hi" }] })
      for (const id of [reached, lost]) {
        const again = yield* request("PATCH", `/platform/v1/templates/${id}`, { key: s.key, body: { components: [{ type: "BODY", text: "Hey" }] } })
        expect(again.status, again.text).toBe(200)
        expect(again.body).toMatchObject({ meta_status: "pending", components: [{ type: "BODY", text: "Hey" }] })
      }
    }))

  it.effect("the registered edit sweep settles a dead edit on its own once 2 minutes have passed, ticking every 30 seconds", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const start = Date.now()
      const id = yield* approvedRow(s.dev.accountId, s.chat, "555000444")
      const [{ name }] = (yield* q<{ name: string }>`select name from templates where id = ${id}`) as [{ name: string }]
      // As a PATCH whose process died while Meta answered leaves the row (the previous test shows it is so).
      const edit = heldOnce({ success: true })
      msw.use(http.post(`${GRAPH}/${VERSION}/555000444`, edit.answer))
      const templates = yield* Templates
      const editing = yield* Effect.fork(at(start)(templates.update(s.dev.accountId, id, { components: HELLO })))
      yield* Effect.promise(() => edit.inside)
      const crashed = yield* crashPoint(id)
      edit.release()
      yield* Fiber.join(editing)
      yield* crashed
      // Meta's components include a FLOW button the platform cannot model: the status is taken, the stored content stays.
      const flow = [...HELLO, { type: "BUTTONS", buttons: [{ type: "FLOW", text: "Open", flow_id: "1" }] }]
      msw.use(listed([{ id: "555000444", name, language: "en_US", status: "REJECTED", rejected_reason: "INVALID_FORMAT", category: "UTILITY", components: flow }]))

      const statusOf = q<{ meta_status: string; meta_rejection_reason: string | null; components: unknown }>`
        select meta_status, meta_rejection_reason, components from templates where id = ${id}`.pipe(Effect.map(([r]) => r))
      yield* Effect.gen(function*() {
        yield* TestClock.setTime(start + 100_000)
        const ticks = yield* SubscriptionRef.make(0)
        const ticked = (n: number) => ticks.changes.pipe(Stream.filter((t) => t >= n), Stream.runHead)
        yield* Effect.forkScoped(templateSweep(ticks))
        yield* ticked(1)
        expect(yield* statusOf).toEqual({ meta_status: "pending", meta_rejection_reason: null, components: [{ type: "BODY", text: "Hi" }] })
        yield* TestClock.adjust(TEMPLATE_SWEEP_INTERVAL)
        yield* ticked(2)
        expect(yield* statusOf).toEqual({ meta_status: "rejected", meta_rejection_reason: "INVALID_FORMAT", components: [{ type: "BODY", text: "Hi" }] })
      }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext))
    }))

  it.effect("a create whose process dies while Meta answers is left alone for 2 minutes; then the sweep gives it Meta's id and status, or deletes it when Meta never got it", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const templates = yield* Templates
      const q = yield* sql
      // The dead creates ran 10 minutes ago (their rows' created_at is set back to then): a live create's row is younger.
      const start = Date.now() - 600_000
      type Row = { meta_status: string | null; meta_template_id: string | null; meta_rejection_reason: string | null; components: unknown }
      const rowOf = (name: string) =>
        q<Row>`select meta_status, meta_template_id, meta_rejection_reason, components from templates where name = ${name}`.pipe(Effect.map(([r]) => r))
      // Meta got the create of `reached` and rejected it; the create of `lost` never reached Meta.
      const reached = uniqueName("dead_create")
      const lost = uniqueName("dead_create")
      const reachedId = yield* deadCreate(s.dev.accountId, s.chat, reached, start)
      yield* deadCreate(s.dev.accountId, s.chat, lost, start)
      const dead = { meta_status: "pending", meta_template_id: null, meta_rejection_reason: null, components: HELLO }
      expect(yield* rowOf(reached)).toEqual(dead)
      expect(yield* rowOf(lost)).toEqual(dead)
      const got = yield* request("GET", `/platform/v1/templates/${reachedId}`, { key: s.key })
      expect(got.body).toMatchObject({ meta_status: "pending", meta_template_id: null })

      const asked: Array<string | null> = []
      const content = [{ type: "BODY", text: "Hello from Meta" }]
      msw.use(listed([
        { id: "444000111", name: reached, language: "en_US", status: "REJECTED", rejected_reason: "INVALID_FORMAT", category: "UTILITY", components: content },
        { id: "444000222", name: reached, language: "fr", status: "APPROVED", category: "UTILITY", components: HELLO }
      ], asked))
      yield* at(start + 119_000)(templates.sweepStale())
      expect(asked).toEqual([])
      expect(yield* rowOf(reached)).toEqual(dead)
      expect(yield* rowOf(lost)).toEqual(dead)

      // A live create in flight (inserted, Meta still answering) is not touched by the sweep.
      const live = uniqueName("live_create")
      const submit = heldOnce({ id: "444000333", status: "PENDING", category: "UTILITY" })
      msw.use(http.post(`${GRAPH}/${VERSION}/:waba/message_templates`, submit.answer))
      const liveInput = Schema.decodeUnknownSync(TemplateCreate)({ channel_id: s.chat, name: live, language_code: "en_US", category: "utility", components: HELLO })
      const creating = yield* Effect.fork(templates.create(s.dev.accountId, liveInput))
      yield* Effect.promise(() => submit.inside)

      yield* Effect.gen(function*() {
        // Two processes sweeping at once: each dead create is taken by one of them and Meta asked once about it.
        const taken = yield* at(start + 120_000)(Effect.all([templates.sweepStale(), templates.sweepStale()], { concurrency: 2 }))
        expect(taken[0] + taken[1]).toBe(2)
        expect(asked.sort()).toEqual([reached, lost].sort())
        expect(yield* rowOf(reached)).toEqual({ meta_status: "rejected", meta_template_id: "444000111", meta_rejection_reason: "INVALID_FORMAT", components: content })
        // As a create Meta refuses: no row is kept.
        expect(yield* rowOf(lost)).toBeUndefined()
        expect(yield* rowOf(live)).toEqual(dead)
      }).pipe(Effect.ensuring(Effect.sync(() => submit.release())))

      const created = yield* Fiber.join(creating)
      expect(created).toMatchObject({ meta_status: "pending", meta_template_id: "444000333" })
    }))

  it.effect("a dead create the sweep cannot ask Meta about keeps its lease and is asked about again 2 minutes later; Meta not having it then deletes it", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const templates = yield* Templates
      const q = yield* sql
      const start = Date.now() - 600_000
      const name = uniqueName("dead_create_outage")
      const id = yield* deadCreate(s.dev.accountId, s.chat, name, start)
      const asked: Array<string | null> = []
      msw.use(http.get(`${GRAPH}/${VERSION}/:waba/message_templates`, ({ request: r }) => {
        asked.push(new URL(r.url).searchParams.get("name"))
        return graphError(401, { message: "Error validating access token: Session has expired", type: "OAuthException", code: 190 })()
      }))
      // Meta failing leaves the row as it was; the lease keeps another pass from asking again at once.
      expect(yield* at(start + 120_000)(templates.sweepStale())).toBe(1)
      expect(yield* at(start + 150_000)(templates.sweepStale())).toBe(0)
      expect(asked).toEqual([name])
      const got = yield* request("GET", `/platform/v1/templates/${id}`, { key: s.key })
      expect(got.status, got.text).toBe(200)
      expect(got.body).toMatchObject({ meta_status: "pending", meta_template_id: null })

      msw.use(listed([], asked))
      expect(yield* at(start + 240_000)(templates.sweepStale())).toBe(1)
      expect(asked).toEqual([name, name])
      expect((yield* q`select 1 from templates where id = ${id}`).length).toBe(0)
    }))

  it.effect("a sync while an edit waits for Meta leaves the row pending: a second PATCH is still 409 and the edit's answer is kept", () =>
    Effect.gen(function*() {
      const s = yield* setupMeta("tpl-msw-edit-sync")
      const q = yield* sql
      const id = yield* approvedRow(s.dev.accountId, s.chat, "555000333")
      const [{ name }] = (yield* q<{ name: string }>`select name from templates where id = ${id}`) as [{ name: string }]
      const edit = heldOnce({ success: true })
      // Meta lists the template as it was before the edit reached it.
      msw.use(
        http.post(`${GRAPH}/${VERSION}/555000333`, edit.answer),
        listed([{ id: "555000333", name, language: "en_US", status: "APPROVED", category: "UTILITY", components: [{ type: "BODY", text: "Hi" }] }])
      )
      const editing = yield* Effect.fork(request("PATCH", `/platform/v1/templates/${id}`, { key: s.key, body: { components: HELLO } }))
      yield* Effect.promise(() => edit.inside)

      const synced = yield* request("POST", "/platform/v1/templates/sync", { key: s.key, body: { channel_id: s.chat } })
      expect(synced.status, synced.text).toBe(200)
      expect(synced.body).toEqual({ imported: 0, updated: 0, skipped: 1, total: 1 })
      const second = yield* request("PATCH", `/platform/v1/templates/${id}`, { key: s.key, body: { components: [{ type: "BODY", text: "Hey" }] } })
      expect(second.status, second.text).toBe(409)
      expect(second.body.detail).toMatchObject({ code: "status_locked", status: "pending" })

      edit.release()
      const first = yield* Fiber.join(editing)
      expect(first.status, first.text).toBe(200)
      expect(first.body).toMatchObject({ meta_status: "pending", components: HELLO })
      expect(edit.calls()).toBe(1)
      const [row] = yield* q<{ meta_status: string; components: unknown }>`select meta_status, components from templates where id = ${id}`
      expect(row).toEqual({ meta_status: "pending", components: HELLO })
    }))

  it.effect("DELETE deletes upstream by name and the template's id; one Meta no longer knows is still deleted here", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const rec = makeRecorder()
      msw.use(...successHandlers(rec))
      const id = yield* approvedRow(s.dev.accountId, s.chat, "888000111")
      const q = yield* sql
      const [row] = yield* q<{ name: string }>`select name from templates where id = ${id}`
      const reply = yield* request("DELETE", `/platform/v1/templates/${id}`, { key: s.key })
      expect(reply.status, reply.text).toBe(204)
      const url = new URL(rec.calls[0]!.url)
      expect([rec.calls[0]!.method, url.pathname, url.searchParams.get("name"), url.searchParams.get("hsm_id")])
        .toEqual(["DELETE", `/${VERSION}/${WABA}/message_templates`, row!.name, "888000111"])

      const goneId = yield* approvedRow(s.dev.accountId, s.chat, "888000222")
      msw.use(http.delete(`${GRAPH}/${VERSION}/:waba/message_templates`, graphError(404, {
        message: "Invalid parameter",
        type: "OAuthException",
        code: 100,
        error_subcode: 2593002,
        error_user_title: "Message template not found"
      })))
      const gone = yield* request("DELETE", `/platform/v1/templates/${goneId}`, { key: s.key })
      expect(gone.status, gone.text).toBe(204)
      expect((yield* q`select 1 from templates where id = ${goneId}`).length).toBe(0)
    }))

  it.effect("header-media opens an upload session on the app and sends the bytes with OAuth and file_offset 0", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const rec = makeRecorder()
      const headers: Array<Record<string, string | null>> = []
      msw.use(
        http.post(`${GRAPH}/${VERSION}/:appid/uploads`, async ({ request: r }) => {
          await rec.record(r)
          return HttpResponse.json({ id: "upload:abc123" })
        }),
        http.post(/\/v23\.0\/upload:abc123$/, async ({ request: r }) => {
          headers.push({ authorization: r.headers.get("authorization"), file_offset: r.headers.get("file_offset") })
          await rec.record(r)
          return HttpResponse.json(META_RESPONSES.uploadHandle)
        })
      )
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3])
      const base = yield* baseUrl
      const reply = yield* Effect.promise(async () => {
        const form = new FormData()
        form.append("channel_id", String(s.chat))
        form.append("file", new Blob([png], { type: "image/png" }), "h.png")
        const res = await fetch(`${base}/platform/v1/templates/header-media`, { method: "POST", headers: { "x-api-key": s.key }, body: form })
        return { status: res.status, text: await res.text() }
      })
      expect(reply.status, reply.text).toBe(200)
      expect(JSON.parse(reply.text)).toEqual({ handle: META_RESPONSES.uploadHandle.h })
      const session = new URL(rec.calls[0]!.url)
      expect([session.searchParams.get("file_length"), session.searchParams.get("file_type"), session.searchParams.get("file_name")])
        .toEqual([String(png.length), "image/png", "h.png"])
      expect(headers).toEqual([{ authorization: `OAuth ${TOKEN}`, file_offset: "0" }])
      expect(reply.text).not.toContain(TOKEN)
    }))
})
