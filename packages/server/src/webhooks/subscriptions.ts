import { SqlClient } from "@effect/sql"
import {
  API_VERSION,
  CUSTOM_HEADERS_MAX_BYTES,
  EventNotConfigured,
  type EventType,
  type ListQuery,
  NotFound,
  ValidationFailed,
  type WebhookSubscription,
  type WebhookSubscriptionCreate,
  type WebhookSubscriptionPatch,
  type WebhookSubscriptionWithSecret
} from "@platform/shared"
import { Clock, Effect } from "effect"
import { AppConfig } from "../config.js"
import { Secrets } from "../crypto/secrets.js"
import { HEADER_NAME, newSubscriptionSecret, NOT_IN_HEADER_VALUE, stripReservedHeaders } from "../delivery/signer.js"
import { GONE_REASON } from "../delivery/record.js"
import { checkUrl, refusalText } from "../net/ssrf.js"
import { DeliveryWakeup } from "../delivery/wakeup.js"
import { failedStatusEnvelope } from "../outbox/statuses.js"
import { type DeliveryRow, deliveryToWire } from "./deliveries.js"
import { newEventId } from "../outbox/events.js"
import { cursorRange, toPage } from "../http/pagination.js"

/** How long the previous secret keeps signing after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000
const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`

interface SubscriptionRow {
  readonly id: number
  readonly developer_account_id: number
  readonly platform_channel_id: number | null
  readonly target_url: string
  readonly description: string | null
  readonly event_types: ReadonlyArray<string>
  readonly custom_headers: Record<string, string> | null
  readonly buffer_window_seconds: number | null
  readonly buffer_max_batch: number | null
  readonly inactivity_minutes: number | null
  readonly is_active: boolean
  readonly is_paused: boolean
  readonly paused_reason: string | null
  readonly failure_count: number
  readonly last_delivery_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

const COLUMNS = `id, developer_account_id, platform_channel_id, target_url, description, event_types, custom_headers,
  buffer_window_seconds, buffer_max_batch, inactivity_minutes, is_active, is_paused, paused_reason, failure_count,
  last_delivery_at, created_at, updated_at`

export const subscriptionToWire = (row: SubscriptionRow): WebhookSubscription => ({
  id: row.id,
  developer_account_id: row.developer_account_id,
  platform_channel_id: row.platform_channel_id,
  target_url: row.target_url,
  description: row.description,
  event_types: row.event_types,
  custom_headers: row.custom_headers,
  buffer_window_seconds: row.buffer_window_seconds,
  buffer_max_batch: row.buffer_max_batch,
  inactivity_minutes: row.inactivity_minutes,
  is_active: row.is_active,
  is_paused: row.is_paused,
  paused_reason: row.paused_reason,
  failure_count: row.failure_count,
  last_delivery_at: row.last_delivery_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

/** What create and rotate-secret answer: the subscription with the secret just made, shown this once. */
const withSecret = (row: SubscriptionRow, secret: string): WebhookSubscriptionWithSecret => ({
  ...subscriptionToWire(row),
  secret
})

const invalid = (field: string, msg: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new ValidationFailed({ detail: [{ loc: ["body", field], msg, type: "value_error", input: input ?? null, ctx }] })

/** A sample envelope for the test route: realistic data of the type, flagged `_test`. */
const sampleData = (event: EventType, nowIso: string, channelId: number | null): Record<string, unknown> => {
  if (event.startsWith("message.")) {
    return {
      message_id: 0,
      conversation_id: 0,
      peer_id: "15550000000",
      direction: event === "message.received" ? "inbound" : "outbound",
      source: event === "message.received" ? "contact" : event === "message.echo" ? "app_echo" : "api",
      type: "text",
      text: "This is a test event",
      has_media: false,
      media_id: null,
      status: event === "message.sent" ? "sent" : event === "message.delivered" ? "delivered" :
        event === "message.read" ? "read" : event === "message.failed" ? "failed" : null,
      meta_message_id: "wamid.TEST",
      // The error a real failed status carries (classified like a refused send's 502).
      ...(event === "message.failed"
        ? { error: failedStatusEnvelope([{ code: 131026, title: "Message undeliverable", message: "Message undeliverable" }]) }
        : {}),
      _test: true
    }
  }
  if (event.startsWith("conversation.")) {
    return {
      conversation_id: 0,
      peer_id: "15550000000",
      status: event === "conversation.ended" ? "ended" : "active",
      message_count: 1,
      last_active_at: nowIso,
      _test: true
    }
  }
  if (event.startsWith("channel.")) {
    return { channel_id: channelId ?? 0, channel_type: "chat", meta_identifier_suffix: "0000", _test: true }
  }
  return {
    template_id: 0,
    name: "test_template",
    language_code: "en_US",
    previous_status: "pending",
    status: "approved",
    meta_template_id: null,
    rejection_reason: null,
    _test: true
  }
}

/** Webhook subscriptions (SPEC §2.5, §3.4, §4.5): ownership in every query, secrets encrypted at rest. */
export class Subscriptions extends Effect.Service<Subscriptions>()("@platform/server/Subscriptions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const config = yield* AppConfig
    const wakeup = yield* DeliveryWakeup

    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * updated_at is the version under which the dispatcher caches a subscription's URL,
     * headers and keys (requests.ts): a change to them must give a version never seen
     * before, also when the previous write was stamped with the same millisecond.
     */
    const nextVersion = (at: Date) => sql`updated_at = greatest(${at}::timestamptz, updated_at + interval '1 microsecond')`

    const checkTarget = (url: string) =>
      checkUrl(url, { allowLocal: config.unsafeAllowLocalTargets }).pipe(
        Effect.mapError((e) => invalid("target_url", refusalText(e), url, { kind: e.kind }))
      )

    const checkChannel = (accountId: number, channelId: number | null | undefined) =>
      Effect.gen(function*() {
        if (channelId === undefined || channelId === null) return
        const rows = yield* sql`select 1 from platform_channels where id = ${channelId} and developer_account_id = ${accountId}`
          .pipe(Effect.orDie)
        if (rows.length === 0) {
          return yield* invalid("platform_channel_id", "the channel does not exist in this account", channelId)
        }
      })

    /**
     * buffer_max_batch caps a buffered subscription's batches (SPEC §6.4: with
     * buffer_window_seconds set); alone it would be stored and never used.
     */
    const checkBuffering = (window: number | null, maxBatch: number | null, input: WebhookSubscriptionPatch) => {
      if (maxBatch === null || window !== null) return Effect.void
      return input.buffer_max_batch !== undefined && input.buffer_max_batch !== null
        ? Effect.fail(invalid(
          "buffer_max_batch",
          "buffer_max_batch applies to buffered subscriptions only: set buffer_window_seconds (1..60) too",
          maxBatch
        ))
        : Effect.fail(invalid(
          "buffer_window_seconds",
          "buffer_window_seconds cannot be null while buffer_max_batch is set: send buffer_max_batch null too",
          null
        ))
    }

    const cleanHeaders = (headers: Readonly<Record<string, string>> | null | undefined) =>
      Effect.gen(function*() {
        if (headers === undefined || headers === null) return headers
        let bytes = 0
        const names = new Map<string, string>()
        for (const [name, value] of Object.entries(headers)) {
          if (!HEADER_NAME.test(name)) return yield* invalid("custom_headers", `"${name}" is not a valid header name`, headers)
          // Header names are case-insensitive: both would be sent, as one header with two values.
          const same = names.get(name.toLowerCase())
          if (same !== undefined) {
            return yield* invalid("custom_headers", `"${same}" and "${name}" are the same header (names are case-insensitive)`, headers)
          }
          names.set(name.toLowerCase(), name)
          const bad = NOT_IN_HEADER_VALUE.exec(value)?.[0]
          if (bad !== undefined) {
            const what = bad === "\r" || bad === "\n" ? "a line break" : codePoint(bad)
            return yield* invalid("custom_headers", `the value of "${name}" contains ${what}, which a header value cannot carry`, headers)
          }
          bytes += name.length + value.length // Latin-1 from here on: a byte per character
        }
        if (bytes > CUSTOM_HEADERS_MAX_BYTES) {
          return yield* invalid("custom_headers", `custom headers may total at most ${CUSTOM_HEADERS_MAX_BYTES} bytes`, headers, {
            max_bytes: CUSTOM_HEADERS_MAX_BYTES
          })
        }
        return stripReservedHeaders(headers)
      })

    const find = (accountId: number, id: number) =>
      sql<SubscriptionRow>`select ${sql.literal(COLUMNS)} from webhook_subscriptions
        where id = ${id} and developer_account_id = ${accountId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => rows[0] === undefined ? Effect.fail(new NotFound()) : Effect.succeed(rows[0]))
      )

    const create = Effect.fn("Subscriptions.create")(function*(accountId: number, input: WebhookSubscriptionCreate) {
      yield* checkTarget(input.target_url)
      yield* checkChannel(accountId, input.platform_channel_id)
      yield* checkBuffering(input.buffer_window_seconds ?? null, input.buffer_max_batch ?? null, input)
      const headers = yield* cleanHeaders(input.custom_headers)
      const secret = newSubscriptionSecret()
      const at = yield* now
      const [row] = yield* sql<SubscriptionRow>`
        insert into webhook_subscriptions
          (developer_account_id, platform_channel_id, target_url, description, event_types, custom_headers,
           buffer_window_seconds, buffer_max_batch, inactivity_minutes, is_active, secret_encrypted, created_at, updated_at)
        values (${accountId}, ${input.platform_channel_id ?? null}, ${input.target_url}, ${input.description ?? null},
                ${[...new Set(input.event_types ?? [])]}::text[],
                ${headers ? JSON.stringify(headers) : null}::jsonb,
                ${input.buffer_window_seconds ?? null}, ${input.buffer_max_batch ?? null}, ${input.inactivity_minutes ?? null},
                ${input.is_active ?? true}, ${secrets.encrypt(secret)}, ${at}, ${at})
        returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
      return withSecret(row!, secret)
    })

    const list = Effect.fn("Subscriptions.list")(function*(accountId: number, query: ListQuery) {
      const range = yield* cursorRange(query)
      const rows = yield* sql<SubscriptionRow>`select ${sql.literal(COLUMNS)} from webhook_subscriptions
        where developer_account_id = ${accountId} and id < ${range.below} and id > ${range.above}
        order by ${sql.literal(range.direction === "before" ? "id asc" : "id desc")} limit ${query.limit + 1}`.pipe(Effect.orDie)
      return toPage(rows, query.limit, range.direction, (r) => subscriptionToWire(r))
    })

    const get = Effect.fn("Subscriptions.get")(function*(accountId: number, id: number) {
      return subscriptionToWire(yield* find(accountId, id))
    })

    const update = Effect.fn("Subscriptions.update")(
      function*(accountId: number, id: number, input: WebhookSubscriptionPatch) {
        const current = yield* find(accountId, id)
        if (input.target_url !== undefined) yield* checkTarget(input.target_url)
        yield* checkChannel(accountId, input.platform_channel_id)
        yield* checkBuffering(
          input.buffer_window_seconds !== undefined ? input.buffer_window_seconds : current.buffer_window_seconds,
          input.buffer_max_batch !== undefined ? input.buffer_max_batch : current.buffer_max_batch,
          input
        )
        const headers = yield* cleanHeaders(input.custom_headers)
        const at = yield* now
        const set: Record<string, unknown> = {}
        if (input.target_url !== undefined) set.target_url = input.target_url
        if (input.platform_channel_id !== undefined) set.platform_channel_id = input.platform_channel_id
        if (input.description !== undefined) set.description = input.description
        if (input.event_types !== undefined) set.event_types = [...new Set(input.event_types)]
        if (headers !== undefined) set.custom_headers = headers === null ? null : JSON.stringify(headers)
        if (input.buffer_window_seconds !== undefined) set.buffer_window_seconds = input.buffer_window_seconds
        if (input.buffer_max_batch !== undefined) set.buffer_max_batch = input.buffer_max_batch
        if (input.inactivity_minutes !== undefined) set.inactivity_minutes = input.inactivity_minutes
        if (input.is_active !== undefined) {
          set.is_active = input.is_active
          // Switching a subscription that a 410 disabled back on clears that reason.
          if (input.is_active && current.paused_reason === GONE_REASON) set.paused_reason = null
        }
        const changes = Object.keys(set).length > 0 ? sql`${sql.update(set)},` : sql``
        const [row] = yield* sql<SubscriptionRow>`update webhook_subscriptions set ${changes} ${nextVersion(at)}
          where id = ${id} and developer_account_id = ${accountId} returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
        if (row === undefined) return yield* new NotFound()
        return subscriptionToWire(row)
      }
    )

    const remove = Effect.fn("Subscriptions.delete")(function*(accountId: number, id: number) {
      const rows = yield* sql`delete from webhook_subscriptions where id = ${id} and developer_account_id = ${accountId}
        returning id`.pipe(Effect.orDie)
      if (rows.length === 0) return yield* new NotFound()
    })

    const resume = Effect.fn("Subscriptions.resume")(function*(accountId: number, id: number) {
      const at = yield* now
      // A subscription the dispatcher switched off after a 410 Gone (record.ts) is switched on
      // again too; one the developer set is_active false stays off.
      const [row] = yield* sql<SubscriptionRow>`
        update webhook_subscriptions set
          is_paused = false,
          is_active = is_active or paused_reason is not distinct from ${GONE_REASON},
          paused_reason = case when is_paused or paused_reason = ${GONE_REASON} then null else paused_reason end,
          failure_count = 0,
          updated_at = case when is_paused or failure_count <> 0 or paused_reason = ${GONE_REASON}
                            then ${at}::timestamptz else updated_at end
        where id = ${id} and developer_account_id = ${accountId}
        returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      // The auto-pause window starts afresh (SPEC §3.4): the failures that paused it do not pause it again.
      yield* sql`delete from delivery_attempt_counts where subscription_id = ${id}`.pipe(Effect.orDie)
      // Held rows of a paused subscription are due again.
      yield* wakeup.deliveriesWritten
      return subscriptionToWire(row)
    })

    const rotateSecret = Effect.fn("Subscriptions.rotateSecret")(function*(accountId: number, id: number) {
      const secret = newSubscriptionSecret()
      const at = yield* now
      const [row] = yield* sql<SubscriptionRow>`
        update webhook_subscriptions set
          previous_secret_encrypted = secret_encrypted,
          previous_secret_expires_at = ${new Date(at.getTime() + ROTATION_OVERLAP_MS)},
          secret_encrypted = ${secrets.encrypt(secret)},
          ${nextVersion(at)}
        where id = ${id} and developer_account_id = ${accountId}
        returning ${sql.literal(COLUMNS)}`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      return withSecret(row, secret)
    })

    const test = Effect.fn("Subscriptions.test")(function*(accountId: number, id: number, eventType?: EventType) {
      const sub = yield* find(accountId, id)
      const configured = sub.event_types as ReadonlyArray<EventType>
      const event: EventType = eventType ?? configured[0] ?? "message.sent"
      if (configured.length > 0 && !configured.includes(event)) {
        return yield* new EventNotConfigured({ configured_event_types: configured })
      }
      const at = yield* now
      const envelope = {
        id: newEventId(),
        event,
        developer_account_id: accountId,
        platform_channel_id: sub.platform_channel_id,
        occurred_at: at.toISOString(),
        api_version: API_VERSION,
        data: sampleData(event, at.toISOString(), sub.platform_channel_id)
      }
      const [row] = yield* sql<DeliveryRow>`
        insert into webhook_deliveries
          (subscription_id, developer_account_id, platform_channel_id, event_id, event_type, envelope, next_retry_at,
           created_at, updated_at)
        select s.id, ${accountId}, ${sub.platform_channel_id}, ${envelope.id}, ${event},
               ${JSON.stringify(envelope)}::json, ${at}, ${at}, ${at}
        from webhook_subscriptions s where s.id = ${sub.id}
        -- No foreign key (migration 0006): a subscription deleted meanwhile gets no row.
        for key share of s
        returning *`.pipe(Effect.orDie)
      if (row === undefined) return yield* new NotFound()
      yield* wakeup.deliveriesWritten
      return deliveryToWire(row, false)
    })

    return { create, list, get, update, delete: remove, resume, rotateSecret, test } as const
  }),
  dependencies: [DeliveryWakeup.Default, Secrets.Default]
}) {}
