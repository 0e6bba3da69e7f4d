import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { AppConfig } from "../../src/config.js"
import { HttpAppLive } from "../../src/server.js"
import { SANDBOX_GRAPH_PREFIX } from "../../src/upstream/sandbox/router.js"
import { SandboxState } from "../../src/upstream/sandbox/state.js"
import { connectChat, createKey, type Dev, request, signup } from "../auth/support.js"
import { TestDatabase } from "../support/database.js"
import { TestListener } from "../support/server.js"

export { request, signup } from "../auth/support.js"

/*
 * The whole server on 127.0.0.1 with the sandbox mounted and pointed at itself:
 * PUBLIC_URL and META_GRAPH_URL are only known once the listener has its port,
 * so the configuration is built from the running server. Domain services and
 * SandboxState stay in the context so tests can inspect the upstream call log.
 */
/** AppConfig for a test server: its PUBLIC_URL and sandbox Graph URL are the listener's own address. */
export const ConfigFromServer = (overrides: Record<string, string>) =>
  Layer.unwrapEffect(
    Effect.map(HttpServer.HttpServer, (server) => {
      const address = server.address as HttpServer.TcpAddress
      const base = `http://127.0.0.1:${address.port}`
      return AppConfig.layerWith({
        LOG_LEVEL: "warning",
        PUBLIC_URL: base,
        META_GRAPH_URL: `${base}${SANDBOX_GRAPH_PREFIX}`,
        SANDBOX_CALLBACK_DELAY_MS: "5",
        ...overrides
      })
    })
  )

/** `MessagingTestServer` over another fresh database layer (one behind an outage proxy). */
export const MessagingTestServerOn = <ROut, E>(database: Layer.Layer<ROut, E>, overrides: Record<string, string> = {}) =>
  HttpApiBuilder.serve().pipe(
    Layer.provideMerge(HttpAppLive),
    Layer.provideMerge(ConfigFromServer(overrides)),
    Layer.provideMerge(TestListener),
    Layer.provideMerge(database),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )

/**
 * The real HTTP surface over a fresh database with the sandbox upstream (or msw, with
 * `UPSTREAM: "meta"`). Use with `excludeTestServices: true`: the server's clock must be
 * the real one (the upstream throttle and the sandbox callbacks sleep).
 */
export const MessagingTestServer = (overrides: Record<string, string> = {}) => MessagingTestServerOn(TestDatabase, overrides)

export interface Setup {
  readonly dev: Dev
  readonly key: string
  readonly chat: number
  readonly social: number
}

/** A developer with a key (every scope, no practical rate limit), a chat and a social channel (lite plan: 3 channels). */
export const setup = (label = "msg") =>
  Effect.gen(function*() {
    const dev = yield* signup(label)
    const sql = yield* SqlClient.SqlClient
    yield* sql`update developer_accounts set plan = 'lite' where id = ${dev.accountId}`
    const { key } = yield* createKey(dev, { rate_limit_per_minute: 100000 })
    const chatReply = yield* connectChat(dev)
    if (chatReply.status !== 201) throw new Error(`connect chat ${chatReply.status} ${chatReply.text}`)
    const socialReply = yield* request("POST", "/platform/dashboard/channels/connect/social", {
      cookie: dev.cookie,
      body: { code: "sandbox-code", redirect_uri: "https://example.com/oauth" }
    })
    if (socialReply.status !== 201) throw new Error(`connect social ${socialReply.status} ${socialReply.text}`)
    return { dev, key, chat: chatReply.body.channel_id as number, social: socialReply.body.channel_id as number } satisfies Setup
  })

/** `setup(label)` once per test file: the first test to ask builds it, the others share it. */
export const sharedSetup = (label: string) => {
  let ready: Setup | undefined
  return Effect.suspend(() => (ready ? Effect.succeed(ready) : setup(label).pipe(Effect.tap((s) => (ready = s)))))
}

/** POST /platform/v1/messages with the key. */
export const send = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  request("POST", "/platform/v1/messages", { key, body, headers })

/** Upstream message sends the sandbox has seen so far. */
export const sandboxSends = Effect.map(SandboxState, (state) =>
  state.calls.filter((c) => c.method === "POST" && c.path.endsWith("/messages")).length)

export const sql = SqlClient.SqlClient

/**
 * A template Meta has on the chat channel's WABA, approved, that the platform may not know
 * (one made in WhatsApp Manager): the simulator sends it instead of answering 132001.
 */
export const sandboxTemplate = (
  s: Pick<Setup, "chat">,
  name: string,
  options: { readonly language?: string; readonly components?: ReadonlyArray<unknown> } = {}
) =>
  Effect.gen(function*() {
    const q = yield* SqlClient.SqlClient
    const state = yield* SandboxState
    const [channel] = yield* q<{ waba_id: string }>`select waba_id from platform_channels where id = ${s.chat}`
    const id = String(1_000_000_000_000 + Math.floor(Math.random() * 8_000_000_000_000))
    state.templates.set(id, {
      id,
      waba_id: channel!.waba_id,
      name,
      language: options.language ?? "en_US",
      category: "UTILITY",
      status: "APPROVED",
      components: options.components ?? [{ type: "BODY", text: "Your order has shipped" }],
      parameter_format: null,
      rejected_reason: "NONE"
    })
    return id
  }).pipe(Effect.orDie)

/**
 * An approved template on a chat channel, as after a create and Meta's review: the local row
 * (approved) and the sandbox's copy on the channel's WABA, so sends and broadcasts of it pass
 * both the platform's checks and the simulator's (which answers 132001 for a name it lacks).
 */
export const approvedTemplate = (
  s: Pick<Setup, "dev" | "chat">,
  name: string,
  options: { readonly body?: string; readonly language?: string; readonly status?: string } = {}
) =>
  Effect.gen(function*() {
    const q = yield* SqlClient.SqlClient
    const language = options.language ?? "en_US"
    const components = [{ type: "BODY", text: options.body ?? "Your order has shipped" }]
    const metaId = yield* sandboxTemplate(s, name, { language, components })
    yield* q`insert into templates (developer_account_id, platform_channel_id, name, language_code, category, body_text,
        components, meta_status, meta_category, meta_template_id)
      values (${s.dev.accountId}, ${s.chat}, ${name}, ${language}, 'utility', ${options.body ?? "Your order has shipped"},
        ${JSON.stringify(components)}::jsonb, ${options.status ?? "approved"}, 'utility', ${metaId})`
    return name
  }).pipe(Effect.orDie)
