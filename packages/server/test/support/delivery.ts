import { SqlClient } from "@effect/sql"
import type { EventType } from "@platform/shared"
import { Effect, Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { Secrets } from "../../src/crypto/secrets.js"
import { deliveryEnvelope } from "../../src/outbox/envelope.js"
import { newSubscriptionSecret } from "../../src/delivery/signer.js"
import { Events } from "../../src/outbox/events.js"
import { DeliveryEngineLive } from "../../src/delivery/delivery-workers.js"
import { embeddedConnection, migrate, pgLayer } from "../../src/db/client.js"
import { TestDatabase } from "./database.js"

/*
 * PGLiteSocketServer queues protocol messages one by one across connections, so
 * two connections' Parse/Bind/Execute sequences can interleave ("bind message
 * supplies 18 parameters, but prepared statement requires 1"). Embedded runs of
 * the engine's tests therefore use one connection; real Postgres gets a pool.
 */
export const EngineDatabase = process.env.DATABASE_URL
  ? TestDatabase
  : Layer.unwrapScoped(Effect.map(
    embeddedConnection({}),
    (connection) => Layer.effectDiscard(migrate).pipe(Layer.provideMerge(pgLayer(connection, 1)))
  ))

/** The delivery engine (no workers) over a fresh test database; loopback receivers allowed. */
export const TestEngine = DeliveryEngineLive.pipe(
  Layer.provideMerge(Events.Default),
  Layer.provideMerge(EngineDatabase),
  Layer.provideMerge(AppConfig.layerWith({ LOG_LEVEL: "warning" }))
)

export const createAccount = (name = "acct") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [account] = yield* sql<{ id: number }>`insert into developer_accounts (name) values (${name}) returning id`
    const [channel] = yield* sql<{ id: number }>`
      insert into platform_channels (developer_account_id, type, name, phone_number_id)
      values (${account!.id}, 'chat', 'main', ${`pn_${account!.id}_${Math.random().toString(36).slice(2)}`})
      returning id`
    return { accountId: account!.id, channelId: channel!.id }
  }).pipe(Effect.orDie)

export interface SubscriptionFixture {
  readonly accountId: number
  readonly url: string
  readonly channelId?: number | null
  readonly eventTypes?: ReadonlyArray<EventType>
  readonly bufferWindowSeconds?: number | null
  readonly bufferMaxBatch?: number | null
  readonly inactivityMinutes?: number | null
  readonly customHeaders?: Record<string, string> | null
  readonly secret?: string
}

/** A subscription row with an encrypted secret; returns its id and plaintext secret. */
export const createSubscription = (f: SubscriptionFixture) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const secrets = yield* Secrets
    const secret = f.secret ?? newSubscriptionSecret()
    const [row] = yield* sql<{ id: number }>`
      insert into webhook_subscriptions
        (developer_account_id, platform_channel_id, target_url, event_types, custom_headers, buffer_window_seconds,
         buffer_max_batch, inactivity_minutes, secret_encrypted)
      values (${f.accountId}, ${f.channelId ?? null}, ${f.url}, ${[...(f.eventTypes ?? [])]}::text[],
              ${f.customHeaders ? JSON.stringify(f.customHeaders) : null}::jsonb, ${f.bufferWindowSeconds ?? null},
              ${f.bufferMaxBatch ?? null}, ${f.inactivityMinutes ?? null}, ${secrets.encrypt(secret)})
      returning id`
    return { id: row!.id, secret }
  }).pipe(Effect.orDie)

let messageSeq = 1

/** Writes a message.* event row through the outbox writer, as the messaging services do. */
export const writeMessageEvent = (input: {
  readonly accountId: number
  readonly channelId: number
  readonly peer: string
  readonly event?: "message.received" | "message.sent" | "message.delivered" | "message.read"
  readonly text?: string
}) =>
  Effect.gen(function*() {
    const events = yield* Events
    const id = messageSeq++
    return yield* events.write({
      event: input.event ?? "message.sent",
      developer_account_id: input.accountId,
      platform_channel_id: input.channelId,
      conversation_peer: input.peer,
      data: {
        message_id: id,
        conversation_id: 1,
        peer_id: input.peer,
        direction: "outbound",
        source: "api",
        type: "text",
        text: input.text ?? `message ${id}`,
        has_media: false,
        media_id: null,
        status: "sent",
        meta_message_id: `wamid.${id}`
      }
    })
  })

/** Delivery rows of a subscription, oldest first, with their payloads (their own, or their event's). */
export const deliveriesOf = (subscriptionId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
      event_id: string
      status: string
      attempts: number
      next_retry_at: Date | null
      delivered_at: Date | null
      response_status: number | null
      envelope: any
      is_batch: boolean
      own_envelope: unknown
    }>`select d.*, d.envelope as own_envelope, ${sql.literal(deliveryEnvelope("d"))} as envelope
       from webhook_deliveries d where d.subscription_id = ${subscriptionId} order by d.id`
  ).pipe(Effect.orDie)
