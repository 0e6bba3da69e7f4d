import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Context, Duration, Effect, Either, Layer, Redacted, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import { vi } from "vitest"
import { AppConfig } from "../src/config.js"
import { Secrets } from "../src/crypto/secrets.js"
import { pgNotify } from "../src/db/client.js"
import { ApiKeys } from "../src/auth/api-keys.js"
import { DeliveryWakeup } from "../src/delivery/wakeup.js"
import { ChannelCredentialsCache } from "../src/channels/channel-credentials.js"
import { ChannelOnboarding } from "../src/channels/channel-onboarding.js"
import { Channels } from "../src/channels/channels.js"
import { Events } from "../src/outbox/events.js"
import { UpstreamLive } from "../src/upstream/live.js"
import { CHANNEL_CHANGES_NOTIFY } from "../src/inbound/channel-directory.js"
import { sql, TestDatabase } from "./support/database.js"

/** One instance's service over the shared database, for the life of the test's scope (each call: another instance). */
const instance = <I, S>(service: Context.Tag<I, S>, layer: Layer.Layer<I, never, any>) =>
  Effect.map(Layer.build(Layer.fresh(layer)), (context) => Context.get(context, service))

/** Freezes the caches' clock (Date only: timers run), so a cached entry never grows stale by itself. */
const freezeDate = Effect.acquireRelease(
  Effect.sync(() => vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })),
  () => Effect.sync(() => vi.useRealTimers())
)

/** Waits, polling, until `check` holds: with the Date frozen, only a NOTIFY can make it so. */
const eventually = (check: Effect.Effect<boolean>, what: string) =>
  check.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced(Duration.millis(10)) }),
    Effect.timeoutFail({ duration: Duration.seconds(10), onTimeout: () => new Error(`the other instance kept ${what}`) })
  )

const Config = AppConfig.layerWith({
  LOG_LEVEL: "warning",
  ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  SESSION_SECRET: randomBytes(32).toString("base64")
})

/** Whether the database is real PostgreSQL: embedded PGlite is one process, with no other instance to tell. */
const realPostgres = Effect.gen(function*() {
  const [server] = yield* (yield* sql)<{ version: string }>`select version() as version`
  return !/PGlite/i.test(server!.version)
})

/** An account of its own for one test. */
const account = (name: string) =>
  Effect.flatMap(sql, (db) => db<{ id: number }>`insert into developer_accounts (name) values (${name}) returning id`)
    .pipe(Effect.map(([row]) => row!.id))

/** A connected chat channel of `accountId`, as a connect commits it (in whichever instance). */
const connectChannel = (accountId: number, phone: string, token: string) =>
  Effect.gen(function*() {
    const secrets = yield* Secrets
    const [row] = yield* (yield* sql)<{ id: number }>`
      insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, access_token_encrypted)
      values (${accountId}, 'chat', ${phone}, ${phone}, '200', ${secrets.encrypt(token)}) returning id`
    return row!.id
  })

/** Waits for `keys` to have forgotten `plaintext` (its next request asks the database). */
const forgotten = (keys: ApiKeys, plaintext: string) =>
  eventually(Effect.sync(() => keys.lookupCached(plaintext) === undefined), "the key")

const ChannelsInstance = Channels.Default.pipe(
  Layer.provide(Layer.mergeAll(Events.Default, ChannelOnboarding.Default).pipe(
    Layer.provideMerge(Layer.merge(UpstreamLive, DeliveryWakeup.Default))
  ))
)

const Instances = Layer.provideMerge(Secrets.Default, Layer.merge(TestDatabase, Config))

layer(Instances, { timeout: 60_000, excludeTestServices: true })("caches of several instances over one database", (it) => {
  it.scoped("a key deactivated or deleted on one instance is refused by another at once, not after its cache TTL", () =>
    Effect.gen(function*() {
      const accountId = yield* account("a")
      const a = yield* instance(ApiKeys, ApiKeys.Default)
      // Embedded PGlite serves one process: there, the instance that made the change is the one to check.
      const b = (yield* realPostgres) ? yield* instance(ApiKeys, ApiKeys.Default) : a
      const created = yield* a.create(accountId, { name: "ci" })
      expect(yield* b.lookup(created.key)).toMatchObject({ id: created.id, is_active: true })
      expect(b.lookupCached(created.key)).toMatchObject({ is_active: true })

      yield* freezeDate

      yield* a.update(accountId, created.id, { is_active: false })
      yield* forgotten(b, created.key)
      expect(yield* b.lookup(created.key)).toMatchObject({ id: created.id, is_active: false })

      yield* a.remove(accountId, created.id)
      yield* forgotten(b, created.key)
      expect(yield* b.lookup(created.key)).toBeNull()
      if (a === b) return

      // Told that anything may have changed (after its LISTEN connection was lost and regained), b forgets every key.
      const other = yield* a.create(accountId, { name: "other" })
      yield* b.lookup(other.key)
      yield* pgNotify(yield* PgClient.PgClient, "platform_api_keys", "*")
      yield* forgotten(b, other.key)
    }))

  it.scoped("a channel disconnected by another instance is unusable here at once: its cached token is forgotten", () =>
    Effect.gen(function*() {
      if (!(yield* realPostgres)) return // one process on embedded PGlite: a disconnect there drops the entry itself
      const db = yield* sql
      const accountId = yield* account("c")
      const channelId = yield* connectChannel(accountId, "100", "token-1")
      const credentials = yield* instance(ChannelCredentialsCache, ChannelCredentialsCache.Default)
      const usable = yield* credentials.get(accountId, channelId)
      expect(Redacted.value(usable.creds.access_token)).toBe("token-1")

      yield* freezeDate
      // What Channels.disconnect commits and announces, in another instance.
      yield* db`update platform_channels set status = 'disconnected', is_active = false, access_token_encrypted = null
        where id = ${channelId}`
      yield* pgNotify(yield* PgClient.PgClient, CHANNEL_CHANGES_NOTIFY, String(channelId))
      yield* eventually(
        Effect.map(Effect.either(credentials.get(accountId, channelId)), (r) =>
          Either.isLeft(r) && r.left._tag === "ChannelUnusable"),
        "the disconnected channel's token"
      )
    }))

  it.scoped("GET /channels of an instance shows a channel connected or disconnected by another instance at once", () =>
    Effect.gen(function*() {
      if (!(yield* realPostgres)) return // one process on embedded PGlite: a change there forgets the list itself
      const db = yield* sql
      const accountId = yield* account("d")
      const first = yield* connectChannel(accountId, "101", "t")
      const channels = yield* instance(Channels, ChannelsInstance)
      const listed = (body: Uint8Array) =>
        (JSON.parse(new TextDecoder().decode(body)) as Array<{ channel_id: number; status: string }>)
          .map((c) => `${c.channel_id}:${c.status}`)
      expect(listed(yield* channels.listJson(accountId))).toEqual([`${first}:active`])

      yield* freezeDate
      const pg = yield* PgClient.PgClient
      // A connect in another instance announces RESYNC (every route may have changed).
      const second = yield* connectChannel(accountId, "102", "t")
      yield* pgNotify(pg, CHANNEL_CHANGES_NOTIFY, "*")
      yield* eventually(
        Effect.map(Effect.suspend(() => channels.listJson(accountId)), (body) => listed(body).length === 2),
        "the list without the new channel"
      )
      // A disconnect announces the channel's id.
      yield* db`update platform_channels set status = 'disconnected', is_active = false where id = ${first}`
      yield* pgNotify(pg, CHANNEL_CHANGES_NOTIFY, String(first))
      yield* eventually(
        Effect.map(Effect.suspend(() => channels.listJson(accountId)), (body) => listed(body).includes(`${first}:disconnected`)),
        "the disconnected channel as active"
      )
      expect(listed(yield* channels.listJson(accountId))).toContain(`${second}:active`)
    }))
})
