import type { HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { API_VERSION, EVENT_STREAMS_PER_ACCOUNT, EVENT_STREAMS_RETRY_AFTER_SECONDS } from "@platform/shared"
import { Deferred, Duration, Effect, Fiber, Option, Schedule } from "effect"
import { PgPool } from "../../src/db/client.js"
import { eventsCommitted } from "../../src/delivery/wakeup.js"
import { Events, newEventId } from "../../src/outbox/events.js"
import { type StreamCursor as Cursor, StreamCursor, type StreamPoll } from "../../src/events/stream-cursor.js"
import { baseUrl, createKey, probe, request } from "../auth/support.js"
import { writeMessageEvent } from "../support/delivery.js"
import { webhookDeveloper, WebhooksTestServer } from "../support/webhooks.js"

interface Developer {
  readonly accountId: number
  readonly channelId: number
  readonly key: string
}

const developer = webhookDeveloper("stream")

interface Frame {
  readonly id: string | null
  readonly event: string
  readonly data: any
}

/**
 * `GET /platform/v1/events/stream` as `platform listen` reads it. The response
 * headers come after the stream's start position is taken, so events written
 * once this returns are the stream's to send. `until` reads until that event id
 * has arrived and returns every event received so far, in order.
 */
const openStream = (dev: Developer, headers: Record<string, string> = { "x-api-key": dev.key }, query = "") =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const controller = new AbortController()
    yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
    const response = yield* Effect.promise(() =>
      fetch(`${base}/platform/v1/events/stream${query}`, { headers, signal: controller.signal })
    )
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    const received: Array<Frame> = []
    let buffer = ""
    let ended = false
    /** Reads one chunk into `received`; false once the server has ended the stream. */
    const read = async () => {
      const { value, done } = await reader.read()
      if (done) {
        ended = true
        return false
      }
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const fields = new Map(buffer.slice(0, end).split("\n").map((line) => {
          const colon = line.indexOf(": ")
          return [line.slice(0, colon), line.slice(colon + 2)] as const
        }))
        buffer = buffer.slice(end + 2)
        const event = fields.get("event")
        if (event !== undefined) received.push({ id: fields.get("id") ?? null, event, data: JSON.parse(fields.get("data")!) })
      }
      return true
    }
    const until = (eventId: string) =>
      Effect.promise(async () => {
        while (!received.some((f) => f.id === eventId)) {
          if (!(await read())) throw new Error(`stream ended before ${eventId}`)
        }
        return received.map((f) => f.id)
      }).pipe(Effect.timeout(Duration.seconds(15)))
    /** Reads until the server ends the stream (None if it is still open after `within`). */
    const end = (within: Duration.DurationInput) =>
      Effect.promise(async () => {
        while (await read());
      }).pipe(Effect.timeoutOption(within))
    return { until, end, received, isEnded: () => ended, close: () => controller.abort() }
  })

/** One message.sent (or `event`) event for the account, committed and announced as the services do. */
const written = (dev: Developer, event?: "message.sent" | "message.delivered" | "message.read") =>
  writeMessageEvent({ accountId: dev.accountId, channelId: dev.channelId, peer: "5511999", ...(event ? { event } : {}) }).pipe(
    Effect.tap(() => eventsCommitted),
    Effect.map((row) => row.envelope.id)
  )

const envelopeOf = (dev: Developer, eventId: string) =>
  JSON.stringify({
    id: eventId,
    event: "message.sent",
    developer_account_id: dev.accountId,
    platform_channel_id: dev.channelId,
    occurred_at: new Date().toISOString(),
    api_version: API_VERSION,
    data: { text: eventId }
  })

/** An event whose id is taken now and whose row becomes visible only when `commit` runs. */
interface LateWriter {
  readonly name: string
  readonly begin: (dev: Developer) => Effect.Effect<
    { readonly eventId: string; readonly commit: Effect.Effect<void> },
    never,
    SqlClient.SqlClient | Events
  >
}

/** The writer draws the id (nextval), the row is inserted later: the moment between the two, stretched. */
const drawnEarly: LateWriter = {
  name: "id drawn before later events commit, row written after them",
  begin: (dev) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [drawn] = yield* sql<{ id: number }>`select nextval(pg_get_serial_sequence('events', 'id')) as id`
      const eventId = newEventId()
      const commit = sql`insert into events (id, event_id, developer_account_id, platform_channel_id, event_type, envelope)
        overriding system value
        values (${drawn!.id}, ${eventId}, ${dev.accountId}, ${dev.channelId}, 'message.sent', ${envelopeOf(dev, eventId)}::json)`
      return { eventId, commit: Effect.orDie(Effect.asVoid(commit)) }
    }).pipe(Effect.orDie)
}

/** The Events service writes the row inside a transaction held open on a connection of its own. */
const heldOpen: LateWriter = {
  name: "transaction held open while later events commit",
  begin: (dev) =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const inserted = yield* Deferred.make<string>()
      const release = yield* Deferred.make<void>()
      const transaction = yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* writeMessageEvent({ accountId: dev.accountId, channelId: dev.channelId, peer: "5511999" })
        yield* Deferred.succeed(inserted, row.envelope.id)
        yield* Deferred.await(release)
      })).pipe(Effect.orDie, Effect.fork)
      const eventId = yield* Deferred.await(inserted)
      return { eventId, commit: Deferred.succeed(release, undefined).pipe(Effect.zipRight(Fiber.join(transaction))) }
    })
}

layer(WebhooksTestServer, { excludeTestServices: true })("GET /platform/v1/events/stream", (it) => {
  it.scoped("a burst of 1,200 events in one commit, then single commits, is streamed in id order, each event once", () =>
    Effect.gen(function*() {
      const dev = yield* developer
      const stream = yield* openStream(dev)
      const sql = yield* SqlClient.SqlClient
      const eventIds = Array.from({ length: 1200 }, () => newEventId())
      const burst = yield* sql<{ id: number; event_id: string }>`
        insert into events (event_id, developer_account_id, platform_channel_id, event_type, envelope)
        select x.event_id, ${dev.accountId}, ${dev.channelId}, 'message.sent',
          json_build_object('id', x.event_id, 'event', 'message.sent', 'developer_account_id', ${dev.accountId}::bigint,
            'platform_channel_id', ${dev.channelId}::bigint, 'occurred_at', ${new Date().toISOString()}::text,
            'api_version', ${API_VERSION}::text, 'data', json_build_object('n', x.n))
        from unnest(${eventIds}::text[]) with ordinality as x(event_id, n)
        returning id, event_id`
      yield* eventsCommitted
      const expected = [...burst].sort((a, b) => a.id - b.id).map((r) => r.event_id)
      yield* stream.until(expected[expected.length - 1]!)
      for (let i = 0; i < 3; i++) expected.push(yield* written(dev))
      yield* stream.until(expected[expected.length - 1]!)
      // Anything sent twice would have arrived before an event written last.
      expected.push(yield* written(dev))
      expect(yield* stream.until(expected[expected.length - 1]!)).toEqual(expected)
      expect(stream.received[0]!.data).toMatchObject({ id: expected[0], event: "message.sent", developer_account_id: dev.accountId })
    }))

  it.scoped("an event that becomes visible after events with higher ids is streamed once, after them", () =>
    Effect.gen(function*() {
      // Embedded PGlite is one connection: no transaction can be held open beside the stream's polls.
      const writers = (yield* PgPool).embedded ? [drawnEarly] : [drawnEarly, heldOpen]
      for (const writer of writers) {
        const dev = yield* developer
        const stream = yield* openStream(dev)
        const late = yield* writer.begin(dev)
        const later = [yield* written(dev), yield* written(dev), yield* written(dev)]
        expect(yield* stream.until(later[2]!), writer.name).toEqual(later)
        yield* late.commit
        const last = yield* written(dev)
        expect(yield* stream.until(last), writer.name).toEqual([...later, late.eventId, last])
      }
    }))

  it.scoped("event_types may be comma-separated, repeated, or both: the stream sends only those types; a misspelt one or conversation.inactive is 422", () =>
    Effect.gen(function*() {
      const dev = yield* developer
      const stream = yield* openStream(dev, undefined, "?event_types=message.read&event_types=message.failed,message.delivered")
      const sent = yield* written(dev, "message.sent")
      const read = yield* written(dev, "message.read")
      const delivered = yield* written(dev, "message.delivered")
      expect(yield* stream.until(delivered)).toEqual([read, delivered])
      expect(stream.received.map((f) => f.id)).not.toContain(sent)
      const misspelt = yield* probe("GET", "/platform/v1/events/stream?event_types=message.read&event_types=message.raed", { key: dev.key })
      expect(misspelt.status).toBe(422)
      expect(misspelt.body.detail).toHaveLength(1)
      expect(misspelt.body.detail[0].loc).toEqual(["query", "event_types", 1])
      expect(misspelt.body.detail[0].msg).toMatch(/, actual "message\.raed"$/)
      // conversation.inactive goes to subscriptions only: a stream of it would never send anything.
      const inactive = yield* probe("GET", "/platform/v1/events/stream?event_types=message.read,conversation.inactive", { key: dev.key })
      expect(inactive.status).toBe(422)
      expect(inactive.body.detail).toEqual([expect.objectContaining({
        loc: ["query", "event_types", 1],
        msg: "conversation.inactive is not on the stream: it is sent per subscription, by its inactivity_minutes"
      })])
    }))

  it.scoped("a stream ends within seconds once its key is deleted, deactivated or expired or its session logged out; the reconnect is 401", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<{
        readonly name: string
        readonly open: (dev: Effect.Effect.Success<typeof developer>) => Effect.Effect<{
          readonly headers: Record<string, string>
          readonly revoke: Effect.Effect<unknown, never, HttpServer.HttpServer>
        }, never, HttpServer.HttpServer>
      }> = [
        {
          name: "key deleted",
          open: (dev) =>
            Effect.map(createKey(dev.dev), (k) => ({
              headers: { "x-api-key": k.key },
              revoke: request("DELETE", `/platform/dashboard/api-keys/${k.id}`, { cookie: dev.dev.cookie })
            }))
        },
        {
          name: "key deactivated",
          open: (dev) =>
            Effect.map(createKey(dev.dev), (k) => ({
              headers: { "x-api-key": k.key },
              revoke: request("PATCH", `/platform/dashboard/api-keys/${k.id}`, {
                cookie: dev.dev.cookie,
                body: { is_active: false }
              })
            }))
        },
        {
          name: "key expired",
          open: (dev) =>
            Effect.map(createKey(dev.dev, { expires_at: new Date(Date.now() + 2500).toISOString() }), (k) => ({
              headers: { "x-api-key": k.key },
              revoke: Effect.sleep(Duration.millis(2600))
            }))
        },
        {
          name: "session logged out",
          open: (dev) =>
            Effect.succeed({
              headers: { cookie: dev.dev.cookie },
              revoke: request("POST", "/platform/dashboard/logout", { cookie: dev.dev.cookie })
            })
        }
      ]
      yield* Effect.forEach(cases, (c) =>
        Effect.gen(function*() {
          const dev = yield* developer
          const { headers, revoke } = yield* c.open(dev)
          const stream = yield* openStream(dev, headers)
          const before = yield* written(dev)
          yield* stream.until(before)
          yield* revoke
          expect(Option.isSome(yield* stream.end(Duration.seconds(8))), c.name).toBe(true)
          expect(stream.received.map((f) => f.id), c.name).toEqual([before])
          expect((yield* probe("GET", "/platform/v1/events/stream", { headers }, 3000)).status, c.name).toBe(401)
        }), { concurrency: "unbounded" })
    }), 40_000)

  it.scoped("an account holds at most 10 open streams: one more is 429 rate limit exceeded with Retry-After, by key or cookie, until one closes", () =>
    Effect.gen(function*() {
      const dev = yield* developer
      const streams = yield* Effect.forEach(Array.from({ length: EVENT_STREAMS_PER_ACCOUNT }), () => openStream(dev))
      for (const credential of [{ key: dev.key }, { cookie: dev.dev.cookie }]) {
        const refused = yield* probe("GET", "/platform/v1/events/stream", credential)
        expect(refused.status).toBe(429)
        expect(refused.body).toEqual({ detail: "rate limit exceeded" })
        expect(refused.headers.get("retry-after")).toBe(String(EVENT_STREAMS_RETRY_AFTER_SECONDS))
      }
      // Another account's streams are its own.
      const other = yield* developer
      const elsewhere = yield* openStream(other)
      const theirs = yield* written(other)
      expect(yield* elsewhere.until(theirs)).toEqual([theirs])
      // The open ones still stream.
      const ours = yield* written(dev)
      expect(yield* streams[EVENT_STREAMS_PER_ACCOUNT - 1]!.until(ours)).toEqual([ours])
      // A closed stream's slot is free again once the server has seen the connection go.
      streams[0]!.close()
      const reopened = yield* probe("GET", "/platform/v1/events/stream", { key: dev.key }, 300).pipe(
        Effect.filterOrFail((r) => r.status !== 429),
        Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)), times: 50 })
      )
      expect(reopened.status).toBe(200)
    }), 30_000)

  it.scoped("a Last-Event-ID unknown, older than 24 h (unless still the newest) or of another account starts after the newest event and says so first; a known one resumes after it", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const dev = yield* developer
      const expired = yield* written(dev)
      yield* sql`update events set occurred_at = now() - interval '25 hours' where event_id = ${expired}`
      const resumable = yield* written(dev)
      let newest = yield* written(dev)
      const theirs = yield* written(yield* developer)
      const resumed = yield* openStream(dev, { "x-api-key": dev.key, "last-event-id": resumable })
      const after = yield* written(dev)
      expect(yield* resumed.until(after)).toEqual([newest, after])
      newest = after
      for (const [name, lastEventId] of [["unknown", newEventId()], ["older than 24 h", expired], ["of another account", theirs]] as const) {
        const stream = yield* openStream(dev, { "x-api-key": dev.key, "last-event-id": lastEventId })
        const next = yield* written(dev)
        expect(yield* stream.until(next), name).toEqual([newest, next])
        expect(stream.received[0], name).toEqual({
          id: newest,
          event: "last_event_id_not_found",
          data: {
            last_event_id: lastEventId,
            starts_after: newest,
            message: `Last-Event-ID ${lastEventId} is not an event of this account from the last 24 hours; the stream starts ` +
              `after the newest event, ${newest}, and events after ${lastEventId} may have been missed.`
          }
        })
        newest = next
      }
      // An event older than 24 h that is still the account's newest resumes as asked: nothing after it was missed.
      const quiet = yield* developer
      const old = yield* written(quiet)
      yield* sql`update events set occurred_at = now() - interval '25 hours' where event_id = ${old}`
      const again = yield* openStream(quiet, { "x-api-key": quiet.key, "last-event-id": old })
      const then = yield* written(quiet)
      expect(yield* again.until(then)).toEqual([then])
      // An account without events: the notice has no id, and the stream starts with the next event.
      const empty = yield* developer
      const lost = newEventId()
      const fresh = yield* openStream(empty, { "x-api-key": empty.key, "last-event-id": lost })
      const first = yield* written(empty)
      expect(yield* fresh.until(first)).toEqual([null, first])
      expect(fresh.received[0]!.data).toMatchObject({ last_event_id: lost, starts_after: null })
    }), 30_000)

  it.scoped("a Last-Event-ID that is not an event id is 422 naming the header; an empty one is none", () =>
    Effect.gen(function*() {
      const dev = yield* developer
      const malformed = yield* probe("GET", "/platform/v1/events/stream", { key: dev.key, headers: { "last-event-id": "42" } })
      expect(malformed.status).toBe(422)
      expect(malformed.body.detail).toHaveLength(1)
      expect(malformed.body.detail[0]).toMatchObject({ loc: ["header", "last-event-id"], input: "42" })
      const stream = yield* openStream(dev, { "x-api-key": dev.key, "last-event-id": "" })
      const next = yield* written(dev)
      expect(yield* stream.until(next)).toEqual([next])
    }))

  it.scoped("a stream whose key stays valid stays open past the credential checks", () =>
    Effect.gen(function*() {
      const dev = yield* developer
      const stream = yield* openStream(dev)
      yield* Effect.sleep(Duration.seconds(6))
      const later = yield* written(dev)
      expect(yield* stream.until(later)).toEqual([later])
      expect(stream.isEnded()).toBe(false)
    }), 20_000)
})

const poll = (p: Partial<StreamPoll> & Pick<StreamPoll, "at" | "xmin">): StreamPoll => ({
  xmax: p.xmin,
  maxId: 0,
  ids: [],
  full: false,
  ...p
})

/** The cursor after each poll, from `start`. */
const run = (start: number, polls: ReadonlyArray<StreamPoll>) => {
  let cursor: Cursor = StreamCursor.start(start)
  return polls.map((p) => {
    const step = StreamCursor.advance(cursor, p)
    cursor = step.cursor
    return { settled: cursor.settled, sent: [...cursor.sent].sort((a, b) => a - b), forced: step.forced }
  })
}

describe("StreamCursor", () => {
  it("keeps ids above a writer still open until its transaction ends, then settles past them", () => {
    // Transaction 100 holds id 11 while 12-14 commit.
    expect(run(10, [
      poll({ at: 0, xmin: 100, xmax: 105, maxId: 14, ids: [12, 13, 14] }),
      poll({ at: 1000, xmin: 100, xmax: 106, maxId: 14 }),
      poll({ at: 2000, xmin: 106, maxId: 15, ids: [11, 15] }),
      poll({ at: 3000, xmin: 107, maxId: 15 })
    ])).toEqual([
      { settled: 10, sent: [12, 13, 14], forced: undefined },
      { settled: 10, sent: [12, 13, 14], forced: undefined },
      { settled: 14, sent: [15], forced: undefined },
      { settled: 15, sent: [], forced: undefined }
    ])
  })

  it("settles an id only by a snapshot taken a second after it was seen (a writer draws its id before its xid)", () => {
    // Id 11 is drawn before 12-14 commit; its writer has no xid yet at 0, takes xid 101 at 600 and commits.
    expect(run(10, [
      poll({ at: 0, xmin: 100, maxId: 14, ids: [12, 13, 14] }),
      poll({ at: 500, xmin: 101, maxId: 14 }),
      poll({ at: 1000, xmin: 102, maxId: 14, ids: [11] })
    ]).map((s) => s.settled)).toEqual([10, 10, 14])
  })

  it("never settles past the last row of a full page", () => {
    expect(run(0, [
      poll({ at: 0, xmin: 100, maxId: 10, ids: [1, 2, 3], full: true }),
      poll({ at: 1000, xmin: 100, maxId: 10, ids: [4, 5, 6], full: true }),
      poll({ at: 1001, xmin: 100, maxId: 10, ids: [7, 8, 9, 10] })
    ])).toEqual([
      { settled: 0, sent: [1, 2, 3], forced: undefined },
      { settled: 6, sent: [], forced: undefined },
      { settled: 10, sent: [], forced: undefined }
    ])
  })

  it.each([
    {
      cap: "a minute of lag",
      polls: [poll({ at: 0, xmin: 50, xmax: 60, maxId: 14, ids: [12] }), poll({ at: 60_001, xmin: 50, xmax: 90, maxId: 20, ids: [20] })],
      settled: 14,
      sent: [20],
      forced: { lagMs: 60_001, sent: 2 }
    },
    {
      cap: "10,000 ids held",
      polls: [
        poll({ at: 0, xmin: 50, xmax: 60, maxId: 6000, ids: Array.from({ length: 6000 }, (_, i) => i + 1) }),
        poll({ at: 10, xmin: 50, xmax: 60, maxId: 10_001, ids: Array.from({ length: 4001 }, (_, i) => i + 6001) })
      ],
      settled: 6000,
      sent: Array.from({ length: 4001 }, (_, i) => i + 6001),
      forced: { lagMs: 10, sent: 10_001 }
    }
  ])("past $cap with a transaction left open, settles the oldest mark anyway and says so", ({ forced, polls, sent, settled }) => {
    const steps = run(0, polls)
    expect(steps[0]!.forced).toBeUndefined()
    expect(steps[1]).toEqual({ settled, sent, forced })
  })
})
