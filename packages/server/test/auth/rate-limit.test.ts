import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ApiKeys } from "../../src/auth/api-keys.js"
import { AuthTestServer, createKey, type Reply, request, signup } from "./support.js"

const CHANNELS = "/platform/v1/channels"

/*
 * One table of behaviour, run against the in-process limiter and, when REDIS_URL is
 * set (CI), against Redis: the same results either way.
 */
const backends: ReadonlyArray<{ readonly name: string; readonly config: Record<string, string> }> = [
  { name: "in-process", config: {} },
  ...(process.env.REDIS_URL ? [{ name: "Redis", config: { REDIS_URL: process.env.REDIS_URL } }] : [])
]

const lastUsedAt = (id: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* (yield* ApiKeys).flush
    const [row] = yield* sql<{ last_used_at: Date | null }>`select last_used_at from api_keys where id = ${id}`
    return row!.last_used_at
  })

const statuses = (replies: ReadonlyArray<Reply>) => replies.map((r) => r.status).sort()

for (const backend of backends) {
  describe(`rate limit (${backend.name})`, () => {
    layer(AuthTestServer(backend.config), { timeout: 60_000 })("per-key sliding window", (it) => {
      it.effect("with a limit of 5, exactly 5 of 20 concurrent requests pass; the rest are 429 with Retry-After", () =>
        Effect.gen(function*() {
          const dev = yield* signup()
          const { key } = yield* createKey(dev, { rate_limit_per_minute: 5 })
          const replies = yield* Effect.all(Array.from({ length: 20 }, () => request("GET", CHANNELS, { key })), {
            concurrency: "unbounded"
          })
          expect(statuses(replies)).toEqual([...Array(5).fill(200), ...Array(15).fill(429)])
          for (const reply of replies.filter((r) => r.status === 429)) {
            expect(reply.text).toBe(`{"detail":"rate limit exceeded"}`)
            expect(Number(reply.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
            expect(Number(reply.headers.get("retry-after"))).toBeLessThanOrEqual(60)
            expect(reply.headers.get("x-ratelimit-remaining")).toBe("0")
          }
          for (const reply of replies) {
            expect(reply.headers.get("x-ratelimit-limit")).toBe("5")
            expect(Number(reply.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000)
          }
          const remaining = replies.filter((r) => r.status === 200).map((r) => r.headers.get("x-ratelimit-remaining")).sort()
          expect(remaining).toEqual(["0", "1", "2", "3", "4"])
        }))

      it.effect("a storm of 401s does not consume any key's budget and carries no rate-limit headers", () =>
        Effect.gen(function*() {
          const dev = yield* signup()
          const { id, key } = yield* createKey(dev, { rate_limit_per_minute: 5 })
          const inactive = yield* createKey(dev, { rate_limit_per_minute: 5 })
          yield* request("PATCH", `/platform/dashboard/api-keys/${inactive.id}`, {
            cookie: dev.cookie,
            body: { is_active: false }
          })
          const storm = yield* Effect.all(
            Array.from({ length: 60 }, (_, i) =>
              request("GET", CHANNELS, i % 3 === 0 ? {} : { key: i % 3 === 1 ? inactive.key : key.slice(0, -1) + "!" })),
            { concurrency: 20 }
          )
          expect(new Set(storm.map((r) => r.status))).toEqual(new Set([401]))
          expect(storm.every((r) => r.headers.get("x-ratelimit-limit") === null)).toBe(true)
          expect(yield* lastUsedAt(id)).toBeNull()
          expect(yield* lastUsedAt(inactive.id)).toBeNull()
          const replies = yield* Effect.all(Array.from({ length: 8 }, () => request("GET", CHANNELS, { key })), {
            concurrency: "unbounded"
          })
          expect(statuses(replies)).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
        }))

      it.effect("requests refused by the limit neither count nor touch last_used_at", () =>
        Effect.gen(function*() {
          const dev = yield* signup()
          const { id, key } = yield* createKey(dev, { rate_limit_per_minute: 2 })
          expect(statuses(yield* Effect.all([request("GET", CHANNELS, { key }), request("GET", CHANNELS, { key })]))).toEqual([
            200,
            200
          ])
          expect(yield* lastUsedAt(id)).toBeInstanceOf(Date)
          const sql = yield* SqlClient.SqlClient
          const sentinel = new Date("2001-01-01T00:00:00Z")
          yield* sql`update api_keys set last_used_at = ${sentinel} where id = ${id}`
          const refused = yield* Effect.all(Array.from({ length: 10 }, () => request("GET", CHANNELS, { key })), {
            concurrency: "unbounded"
          })
          expect(new Set(refused.map((r) => r.status))).toEqual(new Set([429]))
          expect((yield* lastUsedAt(id))!.toISOString()).toBe(sentinel.toISOString())
        }))

      it.effect("a 403 for a missing scope passed authentication: it counts and carries the headers", () =>
        Effect.gen(function*() {
          const dev = yield* signup()
          const { key } = yield* createKey(dev, { scopes: ["send:messages"], rate_limit_per_minute: 3 })
          const replies = yield* Effect.all(Array.from({ length: 4 }, () => request("GET", CHANNELS, { key })))
          expect(replies.map((r) => r.status)).toEqual([403, 403, 403, 429])
          expect(replies.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["2", "1", "0", "0"])
        }))

      it.effect("each key has its own budget, and a PATCHed limit applies at once", () =>
        Effect.gen(function*() {
          const dev = yield* signup()
          const a = yield* createKey(dev, { rate_limit_per_minute: 2 })
          const b = yield* createKey(dev, { rate_limit_per_minute: 2 })
          const run = (key: string, n: number) =>
            Effect.map(Effect.all(Array.from({ length: n }, () => request("GET", CHANNELS, { key }))), statuses)
          expect(yield* run(a.key, 3)).toEqual([200, 200, 429])
          expect(yield* run(b.key, 2)).toEqual([200, 200])
          yield* request("PATCH", `/platform/dashboard/api-keys/${a.id}`, {
            cookie: dev.cookie,
            body: { rate_limit_per_minute: 4 }
          })
          const more = yield* run(a.key, 3)
          expect(more).toEqual([200, 200, 429])
        }))
    })
  })
}
