import { expect, layer } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Effect, Stream, SubscriptionRef, TestClock, TestContext } from "effect"
import { request } from "../auth/support.js"
import { MessagingTestServer, sandboxSends, send, type Setup, sharedSetup, sql } from "../messages/support.js"
import { ExpiredRows, PRUNE_BATCH } from "../../src/accounts/expired-rows.js"
import { EXPIRY_PRUNE_INTERVAL, expiryPrune } from "../../src/accounts/expiry-prune.js"

const ctx = sharedSetup("prune")

let n = 0
const freshKey = () => `prune-${Date.now().toString(36)}-${n++}`

const text = (s: Setup, body: string) => ({ channel_id: s.chat, to: "15550200001", type: "text", text: body })

/** Runs `run` while the prune runs on the TestClock; `ticked(n)` waits for its n-th finished pass. */
const withPrune = <A, E, R>(run: (ticked: (n: number) => Effect.Effect<unknown>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const ticks = yield* SubscriptionRef.make(0)
    const ticked = (n: number) => ticks.changes.pipe(Stream.filter((t) => t >= n), Stream.runHead)
    yield* Effect.forkScoped(expiryPrune(ticks).pipe(Effect.provide(ExpiredRows.Default)))
    return yield* run(ticked)
  }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext))

const keyRows = (accountId: number) =>
  Effect.flatMap(sql, (q) =>
    q<{ key: string }>`select key from idempotency_keys where developer_account_id = ${accountId} order by key`
  ).pipe(Effect.map((rows) => rows.map((r) => r.key)))

layer(MessagingTestServer(), { timeout: 120_000, excludeTestServices: true })("expired rows prune", (it) => {
  it.effect("an expired Idempotency-Key reply is deleted at the prune's tick; a live one stays and still replays", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const [expired, live, later] = [freshKey(), freshKey(), freshKey()]
      const first = yield* send(s.key, text(s, "expires"), { "idempotency-key": expired })
      const kept = yield* send(s.key, text(s, "stays"), { "idempotency-key": live })
      const third = yield* send(s.key, text(s, "expires later"), { "idempotency-key": later })
      expect([first.status, kept.status, third.status]).toEqual([200, 200, 200])
      yield* q`update idempotency_keys set expires_at = now() - interval '1 minute'
        where developer_account_id = ${s.dev.accountId} and key = ${expired}`

      yield* withPrune((ticked) =>
        Effect.gen(function*() {
          yield* ticked(1)
          expect(yield* keyRows(s.dev.accountId)).toEqual([live, later].sort())
          // The next pass comes one interval later on the Effect clock.
          yield* q`update idempotency_keys set expires_at = now() - interval '1 second'
            where developer_account_id = ${s.dev.accountId} and key = ${later}`
          yield* TestClock.adjust(EXPIRY_PRUNE_INTERVAL)
          yield* ticked(2)
          expect(yield* keyRows(s.dev.accountId)).toEqual([live])
        })
      )

      const before = yield* sandboxSends
      const replay = yield* send(s.key, text(s, "stays"), { "idempotency-key": live })
      expect(replay.status).toBe(200)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.text).toBe(kept.text)
      expect((yield* sandboxSends) - before).toBe(0)
      // The pruned key is free: the same request is sent again, not replayed.
      const again = yield* send(s.key, text(s, "expires"), { "idempotency-key": expired })
      expect(again.status).toBe(200)
      expect(again.headers.get("idempotent-replayed")).toBeNull()
      expect(again.body.message_id).not.toBe(first.body.message_id)
      expect((yield* sandboxSends) - before).toBe(1)
    }))

  it.effect("more expired replies than one batch all go in one pass, also with two prunes running at once", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const count = 2 * PRUNE_BATCH + 17
      yield* q`insert into idempotency_keys (developer_account_id, key, request_hash, status, response_status, response_body, expires_at)
        select ${s.dev.accountId}, 'bulk-' || i, 'h', 'completed', 200, '{}', now() - make_interval(secs => i)
        from generate_series(1, ${count}) i`
      const live = freshKey()
      yield* q`insert into idempotency_keys (developer_account_id, key, request_hash, expires_at)
        values (${s.dev.accountId}, ${live}, 'h', now() + interval '1 hour')`

      // Two processes' prunes at once: each takes rows the other has not locked.
      yield* withPrune((ticked) => withPrune((ticked2) => Effect.all([ticked(1), ticked2(1)], { concurrency: 2 })))
      const [left] = yield* q<{ n: number }>`select count(*)::int as n from idempotency_keys
        where developer_account_id = ${s.dev.accountId} and key like 'bulk-%'`
      expect(left!.n).toBe(0)
      expect(yield* keyRows(s.dev.accountId)).toContain(live)
    }))

  it.effect("an expired dashboard session row is deleted; the user's live session still signs in", () =>
    Effect.gen(function*() {
      const s = yield* ctx
      const q = yield* sql
      const login = yield* request("POST", "/platform/dashboard/login", { body: { email: s.dev.email, password: s.dev.password } })
      expect(login.status, login.text).toBe(200)
      const cookie = login.setCookies.find((c) => c.startsWith("access_token_dev="))!.split(";")[0]!
      // A session's row id is the SHA-256 of the token's first part (domain/sessions.ts).
      const loginRow = createHash("sha256").update(cookie.slice("access_token_dev=".length).split(".")[0]!).digest("hex")
      const [before] = yield* q<{ n: number }>`select count(*)::int as n from sessions where user_id = ${s.dev.userId}`
      expect(before!.n).toBeGreaterThanOrEqual(2)
      // The login's session stays live; every other session of the user expired a minute ago.
      yield* q`update sessions set expires_at = now() - interval '1 minute' where user_id = ${s.dev.userId} and id <> ${loginRow}`

      yield* withPrune((ticked) => ticked(1))
      const [left] = yield* q<{ n: number; expired: number }>`select count(*)::int as n,
        count(*) filter (where expires_at < now())::int as expired from sessions where user_id = ${s.dev.userId}`
      expect(left).toEqual({ n: 1, expired: 0 })
      expect((yield* request("GET", "/platform/dashboard/me", { cookie })).status).toBe(200)
      expect((yield* request("GET", "/platform/dashboard/me", { cookie: s.dev.cookie })).status).toBe(401)
    }))
})
