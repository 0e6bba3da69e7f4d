import { SqlClient } from "@effect/sql"
import type { EventType } from "@platform/shared"
import { Clock, Duration, Effect, Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { Secrets } from "../../src/crypto/secrets.js"
import { deliveryEnvelope } from "../../src/outbox/envelope.js"
import { Dispatcher, type PumpOptions } from "../../src/delivery/dispatcher.js"
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

const attemptsRecorded = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: number }>`select coalesce(sum(attempts), 0)::int as n from webhook_deliveries`
).pipe(Effect.map(([row]) => row!.n), Effect.orDie)

/**
 * The clock of a drained pump: the caller's time (a TestClock decides what is due and
 * stamps the rows) with real waits. A recorder waits 3 ms of the clock for more
 * outcomes while a claim holds its slots, and a TestClock would never let them pass.
 */
const pumpClock = Effect.map(Effect.clock, (clock): Clock.Clock => {
  const live = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => clock.unsafeCurrentTimeMillis(),
    currentTimeMillis: clock.currentTimeMillis,
    unsafeCurrentTimeNanos: () => clock.unsafeCurrentTimeNanos(),
    currentTimeNanos: clock.currentTimeNanos,
    sleep: (duration) => live.sleep(duration)
  }
})

/**
 * Delivers what is due as a worker process does: runs the dispatcher's pump (pump.ts,
 * the pipeline `deliveryWorkers` starts) until it has nothing in hand, so every row
 * due by the Effect clock is claimed, POSTed and recorded, and each conversation's
 * next row whose turn comes on the way too. Its sweep is out of reach: under a
 * TestClock the clock alone decides what is due. Returns the attempts recorded
 * meanwhile.
 */
export const drainDeliveries = (options: PumpOptions = {}) =>
  Effect.gen(function*() {
    const dispatcher = yield* Dispatcher
    const before = yield* attemptsRecorded
    yield* Effect.flatMap(dispatcher.pump({ sweep: Duration.days(1), ...options }), (pump) => pump.idle).pipe(
      Effect.scoped,
      Effect.withClock(yield* pumpClock)
    )
    return { attempts: (yield* attemptsRecorded) - before }
  })
