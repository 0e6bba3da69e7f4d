import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { DeliveryWorkersLive } from "../../src/delivery/delivery-workers.js"
import { HttpAppLive } from "../../src/server.js"
import { connectChat, createKey, type Dev, request, signup } from "../auth/support.js"
import { TestDatabase } from "../support/database.js"
import { TestListener } from "../support/server.js"
import { ConfigFromServer } from "../messages/support.js"

export { request } from "../auth/support.js"

/**
 * The HTTP surface and the delivery workers over a fresh database, with the sandbox
 * upstream pointed at itself: a send reaches the Graph client, an inbound POST is
 * fanned out and delivered by the real pipeline. Use with `excludeTestServices: true`.
 */
export const TelemetryTestServer = (overrides: Record<string, string> = {}, logLevel: LogLevel.LogLevel = LogLevel.Warning) =>
  Layer.mergeAll(
    HttpApiBuilder.serve().pipe(Layer.provideMerge(HttpAppLive)),
    DeliveryWorkersLive
  ).pipe(
    Layer.provideMerge(ConfigFromServer(overrides)),
    Layer.provideMerge(TestListener),
    Layer.provideMerge(TestDatabase),
    Layer.provide(Logger.minimumLogLevel(logLevel))
  )

export interface Tenant {
  readonly dev: Dev
  readonly key: string
  readonly channelId: number
  readonly line: { readonly waba_id: string; readonly phone_number_id: string }
}

/** A developer with a key (no practical rate limit) and a sandbox chat channel. */
export const tenant = (label: string) =>
  Effect.gen(function*() {
    const dev = yield* signup(label)
    const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
    const pnid = String(100000000000000 + Math.floor(Math.random() * 1e12))
    const reply = yield* connectChat(dev, pnid)
    if (reply.status !== 201) throw new Error(`connect chat ${reply.status} ${reply.text}`)
    return { dev, key, channelId: reply.body.channel_id as number, line: { waba_id: `WABA${pnid}`, phone_number_id: pnid } } satisfies Tenant
  })

export const subscribe = (t: Tenant, url: string, eventTypes: ReadonlyArray<string>) =>
  Effect.flatMap(
    request("POST", "/platform/v1/webhooks/subscriptions", { key: t.key, body: { target_url: url, event_types: eventTypes } }),
    (reply) => reply.status === 201 || reply.status === 200
      ? Effect.succeed(reply.body.id as number)
      : Effect.die(new Error(`subscribe ${reply.status} ${reply.text}`))
  )

/** One sample of a Prometheus text exposition. */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of a scrape (comment lines skipped). */
export const parseExposition = (text: string): Array<Sample> =>
  text.split("\n").flatMap((line) => {
    const m = SAMPLE.exec(line)
    if (m === null) return []
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!
    return [{ name: m[1]!, labels, value: Number(m[3]) }]
  })

/** The samples named `name` whose labels include `labels`. */
export const samples = (all: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

/** The sum of the matching samples' values (0 when none). */
export const total = (all: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples(all, name, labels).reduce((sum, s) => sum + s.value, 0)

/** Rows read in tests. */
export const rows = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(f(sql)))
