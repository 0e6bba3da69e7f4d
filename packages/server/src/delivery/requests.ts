import type { SqlClient } from "@effect/sql"
import { USER_AGENT, WebhookHeaders } from "@platform/shared"
import { Effect, Redacted } from "effect"
import type { Secrets } from "../crypto/secrets.js"
import { type ClaimedRow, SUBSCRIPTION_VERSION } from "./claims.js"
import { signatureHeaders, signingKeys, type SigningKeys, stripReservedHeaders } from "./signer.js"
import type { PostOutcome } from "./transport.js"

/**
 * The outcome of a claimed row that cannot be sent, or undefined: a row reads its
 * event's envelope (envelope.ts, deliveryEnvelope), and an event deleted meanwhile
 * leaves it none. Recorded as a failed attempt, it follows the retry schedule to
 * failed instead of being claimed again at every lease.
 */
export const unsendable = (row: ClaimedRow): PostOutcome | undefined =>
  row.envelope === null
    ? { _tag: "NoAnswer", reason: `event ${row.event_id} no longer exists`, latencyMs: 0 }
    : undefined

/** What sending needs of a subscription, as of one version of it. */
export interface CachedKeys {
  readonly version: number
  readonly url: string
  /** When the previous secret stops signing (0: no previous secret among `keys`). */
  readonly previousUntil: number
  readonly keys: SigningKeys
  readonly headers: Record<string, string>
}

interface SubscriptionRow {
  readonly version: number
  readonly target_url: string
  readonly custom_headers: Record<string, string> | null
  readonly secret_encrypted: Uint8Array
  readonly previous_secret_encrypted: Uint8Array | null
  readonly previous_secret_expires_at: Date | null
}

const EVENT_HEADER = WebhookHeaders.event.toLowerCase()
const EVENT_ID_HEADER = WebhookHeaders.eventId.toLowerCase()
const DELIVERY_ID_HEADER = WebhookHeaders.deliveryId.toLowerCase()

/** The signed requests of deliveries, with their subscriptions' URL, headers and keys cached per version. */
export const makeRequests = (sql: SqlClient.SqlClient, secrets: Secrets) => {
  const cache = new Map<number, CachedKeys>()

  /** The cached entry of the row's subscription, when still that of its version (and its keys still all valid). */
  const cachedKeys = (row: ClaimedRow, nowMs: number): CachedKeys | undefined => {
    const cached = cache.get(row.subscription_id)
    return cached !== undefined && cached.version === row.sub_version &&
        (cached.previousUntil === 0 || nowMs < cached.previousUntil)
      ? cached
      : undefined
  }

  // Read when a version is first seen (a PATCH or rotation bumps updated_at, which
  // claims return); plaintext secrets are kept in memory only.
  const keysFor = (row: ClaimedRow, nowMs: number) =>
    Effect.gen(function*() {
      const cached = cachedKeys(row, nowMs)
      if (cached !== undefined) return cached
      const [sub] = yield* sql<SubscriptionRow>`
        select ${sql.literal(SUBSCRIPTION_VERSION)} as version, s.target_url, s.custom_headers, s.secret_encrypted,
               s.previous_secret_encrypted, s.previous_secret_expires_at
        from webhook_subscriptions s where s.id = ${row.subscription_id}`.pipe(Effect.orDie)
      if (sub === undefined) return yield* Effect.dieMessage(`subscription ${row.subscription_id} no longer exists`)
      const previousUntil = sub.previous_secret_expires_at?.getTime() ?? 0
      const signsWithPrevious = sub.previous_secret_encrypted !== null && previousUntil > nowMs
      const secret = Redacted.value(yield* secrets.decrypt(sub.secret_encrypted))
      const previous = signsWithPrevious ? Redacted.value(yield* secrets.decrypt(sub.previous_secret_encrypted!)) : null
      const entry: CachedKeys = {
        version: sub.version,
        url: sub.target_url,
        previousUntil: signsWithPrevious ? previousUntil : 0,
        keys: signingKeys(secret, previous),
        headers: stripReservedHeaders(sub.custom_headers ?? {})
      }
      cache.set(row.subscription_id, entry)
      return entry
    })

  /** The signed request of one attempt (the timestamp is the claim's). */
  const request = (row: ClaimedRow, entry: CachedKeys, nowMs: number) => {
    const body = Buffer.from(row.envelope!, "utf8")
    const headers: Record<string, string> = {
      ...entry.headers,
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      [EVENT_HEADER]: row.event_type,
      [EVENT_ID_HEADER]: row.event_id,
      [DELIVERY_ID_HEADER]: String(row.id),
      ...signatureHeaders(entry.keys, row.event_id, Math.floor(nowMs / 1000), body)
    }
    return { headers, body }
  }

  return { cachedKeys, keysFor, request } as const
}
