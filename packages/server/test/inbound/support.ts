import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { Secrets } from "../../src/crypto/secrets.js"
import { RawForward } from "../../src/delivery/raw-forward.js"
import { Shutdown } from "../../src/jobs/shutdown.js"
import { HttpAppLive } from "../../src/server.js"
import { signedBody } from "../fixtures/meta/inbound.js"
import { TestDatabase } from "../support/database.js"
import { baseUrl, TestListener } from "../support/server.js"

/** Fixed keys so the test's Secrets and the server's decrypt each other's rows. */
const KEYS = {
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  SESSION_SECRET: "inbound-test-session-secret"
}

/** The HTTP surface plus RawForward and Secrets for the test itself, on a fresh database. */
export const TestInbound = (overrides: Record<string, string> = {}) =>
  Layer.mergeAll(
    HttpApiBuilder.serve().pipe(Layer.provide(HttpAppLive)),
    RawForward.Default
  ).pipe(
    Layer.provideMerge(Secrets.Default),
    Layer.provideMerge(Shutdown.Default),
    Layer.provideMerge(TestListener),
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(AppConfig.layerWith({ LOG_LEVEL: "error", ...KEYS, ...overrides }))
  )

let n = 0
const uid = () => `${Date.now().toString().slice(-6)}${++n}`

export interface ChannelFixture {
  readonly accountId: number
  readonly channelId: number
  readonly line: { readonly waba_id: string; readonly phone_number_id: string; readonly display_phone_number: string }
  readonly socialId: string
}

/** An account and one connected channel (chat unless told), optionally with a raw-forward webhook. */
export const createChannel = (options: {
  readonly type?: "chat" | "social"
  readonly plan?: string
  readonly webhookUrl?: string
  readonly webhookSecret?: string
  readonly accountId?: number
  readonly wabaId?: string
} = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const id = uid()
    const accountId = options.accountId ?? (yield* sql<{ id: number }>`
      insert into developer_accounts (name, plan) values (${`acct ${id}`}, ${options.plan ?? "pro"}) returning id`)[0]!.id
    const type = options.type ?? "chat"
    const line = { waba_id: options.wabaId ?? `10${id}`, phone_number_id: `20${id}`, display_phone_number: `1555${id}` }
    const socialId = `178414${id}`
    const [channel] = yield* sql<{ id: number }>`
      insert into platform_channels (developer_account_id, type, name, phone_number_id, waba_id, display_phone_number,
        social_id, webhook_url, webhook_secret_encrypted)
      values (${accountId}, ${type}, 'main', ${type === "chat" ? line.phone_number_id : null},
        ${type === "chat" ? line.waba_id : null}, ${type === "chat" ? line.display_phone_number : null},
        ${type === "social" ? socialId : null}, ${options.webhookUrl ?? null},
        ${options.webhookSecret === undefined ? null : secrets.encrypt(options.webhookSecret)})
      returning id`
    return { accountId, channelId: channel!.id, line, socialId } satisfies ChannelFixture
  }).pipe(Effect.orDie)

/** POSTs a body to /webhook/incoming (signed like Meta unless a signature is given). */
export const postInbound = (payload: unknown, options: { readonly signature?: string | null; readonly body?: string } = {}) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const signed = signedBody(options.body ?? payload)
    const headers: Record<string, string> = { "content-type": "application/json" }
    const signature = options.signature === undefined ? signed.signature : options.signature
    if (signature !== null) headers["x-hub-signature-256"] = signature
    const res = yield* Effect.promise(() => fetch(`${base}/webhook/incoming`, { method: "POST", headers, body: signed.body }))
    const text = yield* Effect.promise(() => res.text())
    return { status: res.status, body: text === "" ? null : JSON.parse(text) as unknown, sent: signed.body }
  })
