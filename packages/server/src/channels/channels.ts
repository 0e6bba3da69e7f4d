import { SqlClient } from "@effect/sql"
import {
  Channel,
  type ChannelType,
  type ChannelWebhook,
  type ChannelWebhookUpdate,
  Conflict,
  type DashboardChannel,
  META_IDENTIFIER_SUFFIX_LENGTH,
  NotFound,
  type Plan,
  PLAN_LIMITS,
  PlanForbidden,
  ValidationFailed
} from "@platform/shared"
import { Effect, Redacted, Schema } from "effect"
import { AppConfig } from "../config.js"
import { randomToken } from "../crypto/api-key-format.js"
import { Secrets } from "../crypto/secrets.js"
import { crossProcessInvalidation } from "../db/cache-invalidation.js"
import { checkUrl, refusalText } from "../net/ssrf.js"
import { CHANNEL_CHANGES_NOTIFY, channelChanged } from "../inbound/channel-directory.js"
import { announcingEvents } from "../delivery/wakeup.js"
import { lockAccount } from "../accounts/account-lock.js"
import { ChannelCredentialsCache } from "./channel-credentials.js"
import { ChannelOnboarding } from "./channel-onboarding.js"
import { Events } from "../outbox/events.js"

interface ChannelRow {
  readonly id: number
  readonly type: ChannelType
  readonly name: string | null
  readonly status: "connected" | "disconnected"
  readonly is_active: boolean
  readonly phone_number_id: string | null
  readonly waba_id: string | null
  readonly display_phone_number: string | null
  readonly social_id: string | null
  readonly inbound_enabled: boolean
  readonly quality_rating: string | null
  readonly webhook_url: string | null
  readonly has_webhook_secret: boolean
  readonly created_at: Date
  readonly disconnected_at: Date | null
}

// Never selects token or secret columns: what is not read cannot leak.
const columns = `id, type, name, status, is_active, phone_number_id, waba_id, display_phone_number, social_id,
  inbound_enabled, quality_rating, webhook_url, webhook_secret_encrypted is not null as has_webhook_secret,
  created_at, disconnected_at`

const identifierOf = (row: { readonly type: ChannelType; readonly phone_number_id: string | null; readonly social_id: string | null }) =>
  (row.type === "chat" ? row.phone_number_id : row.social_id) ?? ""

export const identifierSuffix = (identifier: string) => identifier.slice(-META_IDENTIFIER_SUFFIX_LENGTH)

const toChannel = (row: ChannelRow): Channel => ({
  channel_id: row.id,
  type: row.type,
  name: row.name,
  display_phone_number: row.display_phone_number,
  username: row.type === "social" ? row.name : null,
  meta_identifier_suffix: identifierSuffix(identifierOf(row)),
  status: row.status === "disconnected" ? "disconnected" : row.is_active ? "active" : "inactive",
  inbound_enabled: row.inbound_enabled,
  quality_rating: row.quality_rating,
  created_at: row.created_at.toISOString()
})

const toDashboardChannel = (row: ChannelRow): DashboardChannel => ({
  ...toChannel(row),
  phone_number_id: row.phone_number_id,
  waba_id: row.waba_id,
  social_id: row.social_id,
  webhook_url: row.webhook_url,
  has_webhook_secret: row.has_webhook_secret,
  disconnected_at: row.disconnected_at?.toISOString() ?? null
})

const isUniqueViolation = (error: unknown) =>
  (error as { cause?: { code?: string } } | undefined)?.cause?.code === "23505"

const LIST_CACHE_MS = 2_000

interface ListEntry {
  readonly channels: ReadonlyArray<Channel>
  readonly at: number
  /** The v1 JSON body per `type` filter ("" for none), encoded on first use. */
  readonly bodies: Map<string, Uint8Array>
}

const encodeList = Schema.encodeSync(Schema.Array(Channel))
const utf8 = new TextEncoder()

const alreadyConnected = () => new Conflict({ message: "this upstream identifier is already connected to a channel" })

/** Raw-forward secrets: `whsec_` and 32 random bytes; the HMAC key is the whole string's UTF-8 bytes. */
const newWebhookSecret = () => `whsec_${randomToken(32)}`

/**
 * Channels of an account: the v1 list, connect (code exchange, plan's channel cap,
 * channel.connected), disconnect (channel.disconnected) and raw-forward configuration.
 * Every query is scoped by account; a foreign id is the same 404 as a missing one.
 */
export class Channels extends Effect.Service<Channels>()("@platform/server/Channels", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const events = yield* Events
    const onboarding = yield* ChannelOnboarding
    const config = yield* AppConfig
    const credentials = yield* ChannelCredentialsCache

    const rows = (accountId: number, type?: ChannelType) =>
      sql<ChannelRow>`
        select ${sql.literal(columns)} from platform_channels
        where developer_account_id = ${accountId} ${type === undefined ? sql`` : sql`and type = ${type}`}
        order by id desc`.pipe(Effect.orDie)

    /*
     * The v1 list is read far more often than channels change, so it is cached per
     * account for LIST_CACHE_MS, together with its encoded JSON bodies: every change
     * made here invalidates at once, a connect or disconnect in another instance as
     * soon as its NOTIFY arrives (CHANNEL_CHANGES_NOTIFY), any other change within that time.
     */
    const listCache = new Map<number, ListEntry>()
    const invalidate = (accountId: number) => {
      listCache.delete(accountId)
    }
    yield* crossProcessInvalidation(CHANNEL_CHANGES_NOTIFY, (channelId) => {
      for (const [accountId, entry] of listCache) {
        if (channelId === undefined || entry.channels.some((c) => c.channel_id === channelId)) listCache.delete(accountId)
      }
    })

    const filtered = (channels: ReadonlyArray<Channel>, type?: ChannelType) =>
      type === undefined ? channels : channels.filter((c) => c.type === type)

    const cached = (accountId: number): ListEntry | undefined => {
      const hit = listCache.get(accountId)
      return hit !== undefined && Date.now() - hit.at < LIST_CACHE_MS ? hit : undefined
    }

    const fill = (accountId: number): Effect.Effect<ListEntry> => {
      const at = Date.now()
      return Effect.map(rows(accountId), (found) => {
        const entry: ListEntry = { channels: found.map(toChannel), at, bodies: new Map() }
        if (listCache.size >= 10_000) listCache.clear()
        listCache.set(accountId, entry)
        return entry
      })
    }

    // Encoded by the contract's own schema, so the bytes are what HttpApi would send.
    const bodyOf = (entry: ListEntry, type?: ChannelType): Uint8Array => {
      const key = type ?? ""
      let body = entry.bodies.get(key)
      if (body === undefined) {
        body = utf8.encode(JSON.stringify(encodeList(filtered(entry.channels, type))))
        entry.bodies.set(key, body)
      }
      return body
    }

    /**
     * GET /platform/v1/channels as its JSON body (UTF-8): newest first, never token
     * material. A hot path: no span, no query on a hit, one encode per cache fill and filter.
     */
    const listJson = (accountId: number, type?: ChannelType): Effect.Effect<Uint8Array> => {
      const hit = cached(accountId)
      return hit !== undefined ? Effect.succeed(bodyOf(hit, type)) : Effect.map(fill(accountId), (entry) => bodyOf(entry, type))
    }

    /** PATCH /platform/v1/channels/{id}/inbound: the kill-switch, for both channel kinds. */
    const setInbound = Effect.fn("Channels.setInbound")(function*(accountId: number, channelId: number, enabled: boolean) {
      const [row] = yield* sql<ChannelRow>`
        update platform_channels set inbound_enabled = ${enabled}, updated_at = now()
        where id = ${channelId} and developer_account_id = ${accountId} and status = 'connected'
        returning ${sql.literal(columns)}`.pipe(Effect.orDie)
      invalidate(accountId)
      if (row === undefined) return yield* new NotFound({ message: "channel not found" })
      yield* channelChanged(channelId) // the kill-switch, at once in every channel directory
      return toChannel(row)
    })

    const listDashboard = Effect.fn("Channels.listDashboard")(function*(accountId: number) {
      return (yield* rows(accountId)).map(toDashboardChannel)
    })

    const planCheck = Effect.fn("Channels.planCheck")(function*(accountId: number, lock: boolean) {
      if (lock) yield* lockAccount(sql, accountId) // then counted by a statement of its own (see lockAccount)
      const [row] = yield* sql<{ plan: Plan; connected: number }>`
        select a.plan, (select count(*)::int from platform_channels c
          where c.developer_account_id = a.id and c.status = 'connected') as connected
        from developer_accounts a where a.id = ${accountId}`.pipe(Effect.orDie)
      const plan = row?.plan ?? "free"
      const max = PLAN_LIMITS[plan].channels
      if ((row?.connected ?? 0) >= max) {
        return yield* new PlanForbidden({
          message: `the ${plan} plan allows ${max} connected channel(s); upgrade the plan or disconnect one`
        })
      }
    })

    /*
     * The plan's cap is checked before the code exchange (no upstream call beyond a hard
     * limit) and again under a lock on the account row in the inserting transaction, so
     * two concurrent connects cannot both take the last slot.
     */
    const insertConnected = (
      accountId: number,
      values: {
        readonly type: ChannelType
        readonly name: string | null
        readonly phone_number_id: string | null
        readonly waba_id: string | null
        readonly display_phone_number: string | null
        readonly social_id: string | null
        readonly token: Redacted.Redacted<string>
        readonly quality_rating?: string | null | undefined
        readonly throughput_per_second?: number | null | undefined
      }
    ) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* planCheck(accountId, true)
        const duplicate = yield* sql`
          select 1 from platform_channels where is_active and (
            (${values.phone_number_id}::text is not null and phone_number_id = ${values.phone_number_id}) or
            (${values.social_id}::text is not null and social_id = ${values.social_id}))`
        if (duplicate.length > 0) return yield* alreadyConnected()
        const [row] = yield* sql<ChannelRow>`
          insert into platform_channels
            (developer_account_id, type, name, phone_number_id, waba_id, display_phone_number, social_id, access_token_encrypted,
             quality_rating, throughput_per_second)
          values (${accountId}, ${values.type}, ${values.name}, ${values.phone_number_id}, ${values.waba_id},
                  ${values.display_phone_number}, ${values.social_id}, ${secrets.encrypt(values.token)},
                  ${values.quality_rating ?? null}, ${values.throughput_per_second ?? null})
          returning ${sql.literal(columns)}`
        yield* events.write({
          event: "channel.connected",
          developer_account_id: accountId,
          platform_channel_id: row!.id,
          data: { channel_id: row!.id, channel_type: values.type, meta_identifier_suffix: identifierSuffix(identifierOf(row!)) }
        })
        return toDashboardChannel(row!)
      })).pipe(
        announcingEvents, // after the commit: wakes fan-out for channel.connected
        // after the commit: the new channel is routed at once (here and, by NOTIFY, elsewhere)
        Effect.ensuring(Effect.zipRight(Effect.sync(() => invalidate(accountId)), channelChanged())),
        Effect.catchTag("SqlError", (e) => isUniqueViolation(e) ? Effect.fail(alreadyConnected()) : Effect.die(e))
      )

    /*
     * Connect: plan cap and (chat) a number already connected are refused before any
     * upstream call; the onboarding then exchanges the code and sets the number up at
     * the upstream; the row and channel.connected are written in one transaction.
     */
    const connectChat = Effect.fn("Channels.connectChat")(
      function*(
        accountId: number,
        input: { readonly code: string; readonly phone_number_id: string; readonly waba_id: string; readonly pin?: string | undefined }
      ) {
        yield* planCheck(accountId, false)
        const taken = yield* sql`
          select 1 from platform_channels where is_active and phone_number_id = ${input.phone_number_id}`.pipe(Effect.orDie)
        if (taken.length > 0) return yield* alreadyConnected()
        const connected = yield* onboarding.connectChat(input)
        return yield* insertConnected(accountId, {
          type: "chat",
          name: connected.name,
          phone_number_id: input.phone_number_id,
          waba_id: input.waba_id,
          display_phone_number: connected.display_phone_number,
          social_id: null,
          token: connected.access_token,
          quality_rating: connected.quality_rating,
          throughput_per_second: connected.throughput_per_second
        })
      }
    )

    const connectSocial = Effect.fn("Channels.connectSocial")(
      function*(
        accountId: number,
        input: { readonly code: string; readonly redirect_uri: string; readonly social_id?: string | undefined }
      ) {
        yield* planCheck(accountId, false)
        const connected = yield* onboarding.connectSocial(input)
        return yield* insertConnected(accountId, {
          type: "social",
          name: connected.username ?? connected.name,
          phone_number_id: null,
          waba_id: null,
          display_phone_number: null,
          social_id: connected.social_id,
          token: connected.access_token
        })
      }
    )

    /** Forgets the token and the raw-forward secret; the row stays for history (messages reference it). */
    const disconnect = Effect.fn("Channels.disconnect")(function*(accountId: number, channelId: number) {
      yield* sql.withTransaction(Effect.gen(function*() {
        const [row] = yield* sql<{ id: number; type: ChannelType; phone_number_id: string | null; social_id: string | null }>`
          update platform_channels
          set status = 'disconnected', is_active = false, disconnected_at = now(), updated_at = now(),
              access_token_encrypted = null, webhook_secret_encrypted = null, webhook_url = null
          where id = ${channelId} and developer_account_id = ${accountId} and status = 'connected'
          returning id, type, phone_number_id, social_id`
        if (row === undefined) return yield* new NotFound({ message: "channel not found" })
        yield* credentials.invalidate(row.id)
        yield* events.write({
          event: "channel.disconnected",
          developer_account_id: accountId,
          platform_channel_id: row.id,
          data: { channel_id: row.id, channel_type: row.type, meta_identifier_suffix: identifierSuffix(identifierOf(row)) }
        })
      })).pipe(
        announcingEvents, // after the commit: wakes fan-out for channel.disconnected
        Effect.catchTag("SqlError", Effect.die),
        Effect.ensuring(Effect.sync(() => invalidate(accountId)))
      )
      yield* channelChanged(channelId) // committed: inbound stops routing to it at once
    })

    /**
     * Raw forward (SPEC §6.5): an HTTPS URL that passes the SSRF guard. A secret is
     * created with the first URL or on `regenerate_secret`, and returned only then.
     */
    const configureWebhook = Effect.fn("Channels.configureWebhook")(
      function*(accountId: number, channelId: number, input: ChannelWebhookUpdate) {
        const [current] = yield* sql<{ webhook_url: string | null; has_secret: boolean }>`
          select webhook_url, webhook_secret_encrypted is not null as has_secret from platform_channels
          where id = ${channelId} and developer_account_id = ${accountId} and status = 'connected'`.pipe(Effect.orDie)
        if (current === undefined) return yield* new NotFound({ message: "channel not found" })
        let url = current.webhook_url
        if (input.webhook_url !== undefined) {
          url = input.webhook_url === null
            ? null
            : yield* checkUrl(input.webhook_url, { allowLocal: config.unsafeAllowLocalTargets }).pipe(
              Effect.map((target) => target.url.toString()),
              Effect.mapError((rejected) =>
                new ValidationFailed({
                  detail: [{
                    loc: ["body", "webhook_url"],
                    msg: refusalText(rejected),
                    type: "value_error",
                    input: input.webhook_url ?? null,
                    ctx: { kind: rejected.kind }
                  }]
                })
              )
            )
        }
        if (url === null && input.regenerate_secret === true) {
          // Raw forward is off (or being turned off): there is no secret to regenerate.
          return yield* new ValidationFailed({
            detail: [{
              loc: ["body", "regenerate_secret"],
              msg: "raw forward has no webhook_url: set one to get a secret",
              type: "value_error",
              input: true,
              ctx: {}
            }]
          })
        }
        let secret: string | undefined
        let secretColumn: Buffer | null | undefined
        if (url === null) {
          secretColumn = null
        } else if (input.regenerate_secret === true || !current.has_secret) {
          secret = newWebhookSecret()
          secretColumn = secrets.encrypt(secret)
        }
        const [row] = yield* sql<{ webhook_url: string | null; has_secret: boolean }>`
          update platform_channels set webhook_url = ${url}, updated_at = now()
            ${secretColumn === undefined ? sql`` : sql`, webhook_secret_encrypted = ${secretColumn}`}
          where id = ${channelId} and developer_account_id = ${accountId} and status = 'connected'
          returning webhook_url, webhook_secret_encrypted is not null as has_secret`.pipe(Effect.orDie)
        invalidate(accountId)
        if (row === undefined) return yield* new NotFound({ message: "channel not found" })
        return {
          channel_id: channelId,
          webhook_url: row.webhook_url,
          has_webhook_secret: row.has_secret,
          ...(secret === undefined ? {} : { webhook_secret: secret })
        } satisfies ChannelWebhook
      }
    )

    return { listJson, invalidate, setInbound, listDashboard, connectChat, connectSocial, disconnect, configureWebhook } as const
  }),
  dependencies: [ChannelCredentialsCache.Default, ChannelOnboarding.Default, Events.Default, Secrets.Default]
}) {}
