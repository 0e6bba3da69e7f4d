import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Queue, Random, Stream, TestClock } from "effect"
import { type AddressInfo, createServer } from "node:net"
import { pgNotify } from "../../src/db/client.js"
import { makePgNotifications, PgNotifications, type PgNotificationsShape, RESYNC } from "../../src/db/notifications.js"
import { TestDatabase } from "../support/database.js"

layer(TestDatabase)("pgNotify and PgNotifications", (it) => {
  it.effect("is a valid statement (the library's NOTIFY with a bind parameter is not)", () =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      yield* pgNotify(pg, "platform_probe", "1")
      const refused = yield* Effect.either(pg.notify("platform_probe", "1"))
      expect(refused._tag).toBe("Left")
    }))

  /**
   * Whether the server is real PostgreSQL. On embedded PGlite (one process) nothing
   * is listened to, the in-process pulses being the mechanism: no session of the
   * listener exists, which is checked there instead.
   */
  const realPostgres = (notifications: PgNotificationsShape) =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      const [server] = yield* pg<{ version: string }>`select version() as version`
      if (!/PGlite/i.test(server!.version)) return true
      yield* notifications.subscribe("platform_probe_embedded")
      const [listening] = yield* pg<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = ${notifications.connectionName}`
      expect(listening?.n ?? 0).toBe(0)
      return false
    })

  /** Runs `payloads` into a queue for the life of the scope, to take from one by one. */
  const inbox = (payloads: Stream.Stream<string>) =>
    Effect.gen(function*() {
      const queue = yield* Queue.unbounded<string>()
      yield* payloads.pipe(Stream.runForEach((payload) => Queue.offer(queue, payload)), Effect.forkScoped)
      return queue
    })

  it.scoped("two channels listened to at once on one connection each get their own payloads, one command at a time", () =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      const notifications = yield* PgNotifications
      if (!(yield* realPostgres(notifications))) return
      const warnings: Array<string> = []
      const onWarning = (warning: Error) => warnings.push(warning.message)
      process.on("warning", onWarning)
      yield* Effect.addFinalizer(() => Effect.sync(() => process.off("warning", onWarning)))

      const [a, b] = yield* Effect.all(
        [notifications.subscribe("platform_probe_a"), notifications.subscribe("platform_probe_b")],
        { concurrency: "unbounded" }
      )
      const [inboxA, inboxB] = [yield* inbox(a), yield* inbox(b)]
      // Both LISTENs are in place once `subscribe` has resolved: no wait before NOTIFY.
      yield* pgNotify(pg, "platform_probe_b", "b1")
      yield* pgNotify(pg, "platform_probe_a", "a1")
      expect(yield* Queue.take(inboxA)).toBe("a1")
      expect(yield* Queue.take(inboxB)).toBe("b1")
      const [session] = yield* pg<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = ${notifications.connectionName}`
      expect(session?.n).toBe(1)
      expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([])
    }), { timeout: 20_000 })

  it.scoped("a lost connection is opened again and listened to again: RESYNC, then payloads flow as before", () =>
    Effect.gen(function*() {
      const pg = yield* PgClient.PgClient
      const notifications = yield* PgNotifications
      if (!(yield* realPostgres(notifications))) return
      const payloads = yield* inbox(yield* notifications.subscribe("platform_probe_c"))
      yield* pgNotify(pg, "platform_probe_c", "before")
      expect(yield* Queue.take(payloads)).toBe("before")

      // As a Postgres restart or a dropped connection would: its backend is gone.
      const [killed] = yield* pg<{ n: number }>`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where application_name = ${notifications.connectionName}`
      expect(killed?.n).toBe(1)
      // Told once listening again (anything may have been NOTIFYed meanwhile) ...
      expect(yield* Queue.take(payloads)).toBe(RESYNC)
      // ... and listening: the library's listen stays silent for good here.
      yield* pgNotify(pg, "platform_probe_c", "after")
      expect(yield* Queue.take(payloads)).toBe("after")
      const [session] = yield* pg<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where application_name = ${notifications.connectionName}`
      expect(session?.n).toBe(1)
    }), { timeout: 20_000 })

  // Random draws of 0, 0.5 and 1: the shortest, the nominal and the longest wait of the jitter.
  it.scoped.each([[0, 0.8], [0.5, 1], [1, 1.2]])(
    "an unreachable Postgres is tried again at once, then (jitter draw %s) after x%s of 0.1 s doubling up to 5 s",
    ([draw, factor]) =>
      Effect.gen(function*() {
        // A loopback server that closes every connection: each close is one failed attempt.
        const attempts = yield* Queue.unbounded<void>()
        const refuser = createServer((socket) => {
          socket.destroy()
          Queue.unsafeOffer(attempts, undefined)
        })
        const port = yield* Effect.async<number>((resume) => {
          refuser.listen(0, "127.0.0.1", () => resume(Effect.succeed((refuser.address() as AddressInfo).port)))
        })
        yield* Effect.addFinalizer(() => Effect.sync(() => refuser.close()))
        const notifications = yield* makePgNotifications({ host: "127.0.0.1", port, user: "postgres" }, false)
        yield* Effect.forkScoped(notifications.subscribe("platform_probe_down"))

        yield* Queue.take(attempts) // the first, at once
        for (const ms of [100, 200, 400, 800, 1600, 3200, 5000, 5000]) {
          yield* TestClock.adjust(Duration.millis(ms * factor!))
          yield* Queue.take(attempts)
        }
      }).pipe(Effect.withRandom(Random.fixed([draw!]))),
    { timeout: 20_000 }
  )
})
