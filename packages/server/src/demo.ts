import { SqlClient } from "@effect/sql"
import type { DashboardChannel } from "@platform/shared"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes, randomInt } from "node:crypto"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { AppConfig } from "./config.js"
import { Accounts } from "./accounts/accounts.js"
import { ApiKeys } from "./auth/api-keys.js"
import { Channels } from "./channels/channels.js"
import { Readiness } from "./http/readiness.js"

/**
 * The first-run experience (DESIGN §3): on the first start with the sandbox upstream
 * and an empty database, a demo developer account (plan pro), a connected sandbox chat
 * channel and social channel and an API key with every scope, printed once to stdout.
 * Never with `UPSTREAM=meta` or `NODE_ENV=production`, never in a worker-only process.
 * Nothing secret is written to disk: the key and the password exist only as hashes.
 */

export const DEMO_EMAIL = "demo@example.com"
/** Any constant: serializes the "is the database empty?" check of instances starting together. */
const DEMO_LOCK = 721_004_210
/** The peer the printed curl sends to (an ordinary sandbox recipient: sent, delivered, read). */
export const DEMO_PEER = "15551234567"

export type DemoOutcome =
  | {
    readonly _tag: "Created"
    readonly accountId: number
    readonly email: string
    readonly password: string
    readonly key: string
    readonly chat: Option.Option<DashboardChannel>
    readonly social: Option.Option<DashboardChannel>
  }
  | { readonly _tag: "Exists"; readonly email: string }
  | { readonly _tag: "Skipped"; readonly reason: string }

const generatedPassword = () => randomBytes(12).toString("base64url")
const phoneNumberId = () => String(100_000_000_000_000 + randomInt(0, 2 ** 47) % 899_999_999_999_999)

/**
 * Creates the demo account when this is a sandbox, non-production server with no
 * account at all; says it exists when an earlier start created it. The account and
 * its key are written in one transaction under an advisory lock, so two instances
 * starting on one database cannot both seed; the channels are then connected through
 * `Channels` and the sandbox simulator over HTTP, so this server must be listening.
 */
export const ensureDemo = (options: { readonly password?: string | undefined } = {}) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.upstream !== "sandbox") return { _tag: "Skipped", reason: "upstream is not the sandbox" } as DemoOutcome
    if (config.production) return { _tag: "Skipped", reason: "production" } as DemoOutcome
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Accounts
    const apiKeys = yield* ApiKeys
    const channels = yield* Channels

    const existing = (sql<{ email: string }>`
      select u.email from developer_accounts a
      join account_members m on m.developer_account_id = a.id and m.role = 'owner'
      join users u on u.id = m.user_id
      where a.is_demo order by a.id limit 1`).pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.email)))

    // The common case (every later start) costs one query and no lock.
    const [any] = yield* sql<{ n: number }>`select count(*)::int as n from (select 1 from developer_accounts limit 1) x`
    if ((any?.n ?? 0) > 0) {
      return Option.match(yield* existing, {
        onNone: () => ({ _tag: "Skipped", reason: "the database already has accounts" }) as DemoOutcome,
        onSome: (email) => ({ _tag: "Exists", email }) as DemoOutcome
      })
    }

    const password = options.password !== undefined && options.password.length >= 8 ? options.password : generatedPassword()
    const created = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`select pg_advisory_xact_lock(${DEMO_LOCK})`
      const [again] = yield* sql<{ n: number }>`select count(*)::int as n from (select 1 from developer_accounts limit 1) x`
      if ((again?.n ?? 0) > 0) return Option.none()
      const { accountId } = yield* accounts.signup({
        email: DEMO_EMAIL,
        password,
        name: "Demo Developer",
        account_name: "Demo account"
      })
      yield* sql`update developer_accounts set plan = 'pro', is_demo = true, updated_at = now() where id = ${accountId}`
      const key = yield* apiKeys.create(accountId, { name: "Demo key (printed once at first start)" })
      return Option.some({ accountId, key: key.key })
    }))
    if (Option.isNone(created)) {
      return Option.match(yield* existing, {
        onNone: () => ({ _tag: "Skipped", reason: "another instance created accounts first" }) as DemoOutcome,
        onSome: (email) => ({ _tag: "Exists", email }) as DemoOutcome
      })
    }
    const { accountId, key } = created.value

    // A failed connect leaves the account and key usable (the key must still be printed).
    const connect = (what: string, effect: Effect.Effect<DashboardChannel, unknown>) =>
      effect.pipe(
        Effect.map(Option.some),
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`demo: connecting the sandbox ${what} channel failed`, cause).pipe(Effect.as(Option.none()))
        )
      )
    const pnid = phoneNumberId()
    const chat = yield* connect(
      "chat",
      channels.connectChat(accountId, { code: "demo-embedded-signup", phone_number_id: pnid, waba_id: `2${pnid.slice(1)}` })
    )
    const social = yield* connect(
      "social",
      channels.connectSocial(accountId, { code: "demo-oauth-code", redirect_uri: `${config.publicUrl}/demo/oauth-callback` })
    )
    return { _tag: "Created", accountId, email: DEMO_EMAIL, password, key, chat, social } as DemoOutcome
  }).pipe(Effect.orDie, Effect.withSpan("Demo.ensure"))

/** `node <path>` of the built CLI next to this server, when it is there (a checkout after `npm start`). */
const cliPath = (): Option.Option<string> => {
  try {
    const path = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url))
    return existsSync(path) ? Option.some(path) : Option.none()
  } catch {
    return Option.none()
  }
}

const channelLine = (c: DashboardChannel) =>
  c.type === "chat"
    ? `${c.channel_id} chat (WhatsApp ${c.display_phone_number ?? c.phone_number_id ?? ""})`
    : `${c.channel_id} social (Instagram ${c.username ? `@${c.username}` : c.social_id ?? ""})`

/** Said at start-up when local targets are on by default (AppConfig.localTargetsByDefault). */
const localTargetsLines = [
  "Or subscribe a receiver on this machine: with the sandbox upstream outside production,",
  "webhook targets may be http:// and localhost (UNSAFE_ALLOW_LOCAL_TARGETS=0 refuses them,",
  "as UPSTREAM=meta and NODE_ENV=production do)."
]

/** The framed block printed once, on the start that created the demo account. */
export const renderCreated = (
  outcome: Extract<DemoOutcome, { _tag: "Created" }>,
  publicUrl: string,
  cli: Option.Option<string> = cliPath(),
  localTargets = false
): string => {
  const chatId = Option.map(outcome.chat, (c) => c.channel_id)
  const socialId = Option.map(outcome.social, (c) => c.channel_id)
  const channels = [outcome.chat, outcome.social].flatMap((c) => Option.isSome(c) ? [channelLine(c.value)] : [])
  const body = JSON.stringify({
    channel_id: Option.getOrElse(chatId, () => 0),
    to: DEMO_PEER,
    type: "text",
    text: "Hello from the sandbox!"
  })
  const lines = [
    "Demo account created (sandbox upstream). The API key is shown only this once: copy it now.",
    "",
    `  Dashboard login   ${outcome.email} / ${outcome.password}   (POST ${publicUrl}/platform/dashboard/login)`,
    `  API key           ${outcome.key}   (every scope)`,
    `  Channels          ${channels.length > 0 ? channels.join(", ") : "none (connecting failed; see the log)"}`,
    "",
    "Set up your shell (the README's examples use these):",
    "",
    `  export PLATFORM_BASE_URL=${publicUrl}`,
    `  export PLATFORM_API_KEY=${outcome.key}`,
    ...(Option.isSome(chatId) ? [`  export CHANNEL_ID=${chatId.value}`] : []),
    ...(Option.isSome(socialId) ? [`  export SOCIAL_CHANNEL_ID=${socialId.value}`] : []),
    `  export PLATFORM_DASHBOARD_EMAIL=${outcome.email}`,
    `  export PLATFORM_DASHBOARD_PASSWORD=${outcome.password}`,
    ...(Option.isSome(cli) ? [`  alias platform="node ${cli.value}"`] : []),
    "",
    "Next steps:",
    "",
    "  1. Send a text (delivered and read events follow within a second):",
    "",
    `     curl -sS -X POST ${publicUrl}/platform/v1/messages -H "X-API-Key: ${outcome.key}" \\`,
    `       -H "Content-Type: application/json" -d '${body}'`,
    "",
    "  2. Forward events to your app, signed like real webhooks:",
    "",
    "     platform listen --forward-to http://localhost:3000/webhooks",
    "",
    ...(localTargets ? [...localTargetsLines.map((l) => `     ${l}`), ""] : []),
    "  3. Read the API reference:",
    "",
    `     ${publicUrl}/platform/v1/docs   (OpenAPI 3.1: ${publicUrl}/platform/v1/openapi.json)`
  ]
  const width = Math.max(...lines.map((l) => l.length)) + 2
  const rule = (title: string) => `━━ ${title} ${"━".repeat(Math.max(4, width - title.length - 4))}`
  return ["", rule("Platform demo account"), "", ...lines.map((l) => (l === "" ? "" : `  ${l}`)), "", rule("shown once"), ""]
    .join("\n") + "\n"
}

/** The line printed on later starts: the account exists; no key (it was shown once). */
export const renderExists = (email: string, publicUrl: string, localTargets = false) =>
  `Demo account ${email} exists (created on the first start; its API key is not shown again). ` +
  `New key: log in (POST ${publicUrl}/platform/dashboard/login) and POST ${publicUrl}/platform/dashboard/api-keys.\n` +
  (localTargets ? `${localTargetsLines.join(" ")}\n` : "")

/**
 * At start-up: holds readiness (built before the server listens, so no `/readyz` can
 * answer 200 first), waits until the server answers requests, ensures the demo account,
 * prints the block or the short line to stdout, then lets readiness go, also when it
 * failed (logged: the server is usable without a demo).
 */
export const DemoLive = Layer.scopedDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  if (config.upstream !== "sandbox" || config.production || !config.runsApi) return
  const readiness = yield* Readiness
  const release = yield* readiness.hold
  const password = Option.getOrUndefined(yield* Config.option(Config.redacted("DEMO_PASSWORD")).pipe(
    Effect.map(Option.map(Redacted.value)),
    Effect.orElseSucceed(() => Option.none<string>())
  ))
  yield* readiness.serving.pipe(
    Effect.zipRight(ensureDemo({ password })),
    Effect.tap((outcome) =>
      Effect.sync(() => {
        const local = config.localTargetsByDefault
        if (outcome._tag === "Created") process.stdout.write(renderCreated(outcome, config.publicUrl, cliPath(), local))
        else if (outcome._tag === "Exists") process.stdout.write(renderExists(outcome.email, config.publicUrl, local))
      })
    ),
    Effect.catchAllCause((cause) => Effect.logWarning("demo account: not set up", cause)),
    Effect.ensuring(release),
    Effect.forkScoped
  )
}))
