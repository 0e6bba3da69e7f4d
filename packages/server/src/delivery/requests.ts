import { USER_AGENT, WebhookHeaders } from "@platform/shared"
import { Effect, Redacted } from "effect"
import type { Secrets } from "../crypto/secrets.js"
import type { ClaimedRow } from "./claims.js"
import { deliveryBody } from "./envelope.js"
import { signatureHeaders, signingKeys, type SigningKeys, stripReservedHeaders } from "./signer.js"

export interface CachedKeys {
  readonly version: number
  readonly previousUntil: number
  readonly keys: SigningKeys
  readonly headers: Record<string, string>
}

const EVENT_HEADER = WebhookHeaders.event.toLowerCase()
const EVENT_ID_HEADER = WebhookHeaders.eventId.toLowerCase()
const DELIVERY_ID_HEADER = WebhookHeaders.deliveryId.toLowerCase()

/** The signed requests of deliveries, with their subscriptions' keys cached per version. */
export const makeRequests = (secrets: Secrets) => {
  const cache = new Map<number, CachedKeys>()

  /** The cached keys of the row's subscription, when still those of its version. */
  const cachedKeys = (row: ClaimedRow, nowMs: number): CachedKeys | undefined => {
    const cached = cache.get(row.subscription_id)
    const previousUntil = row.previous_secret_expires_at?.getTime() ?? 0
    return cached !== undefined && cached.version === row.sub_version.getTime() &&
        (cached.previousUntil <= nowMs) === (previousUntil <= nowMs)
      ? cached
      : undefined
  }

  // Plaintext secrets are decrypted once per subscription version and kept in
  // memory only; a PATCH or rotation bumps updated_at, which the claim returns.
  const keysFor = (row: ClaimedRow, nowMs: number) =>
    Effect.gen(function*() {
      const cached = cachedKeys(row, nowMs)
      if (cached !== undefined) return cached
      const version = row.sub_version.getTime()
      const previousUntil = row.previous_secret_expires_at?.getTime() ?? 0
      const secret = Redacted.value(yield* secrets.decrypt(row.secret_encrypted))
      const previous = row.previous_secret_encrypted !== null && previousUntil > nowMs
        ? Redacted.value(yield* secrets.decrypt(row.previous_secret_encrypted))
        : null
      const entry: CachedKeys = {
        version,
        previousUntil,
        keys: signingKeys(secret, previous),
        headers: stripReservedHeaders(row.custom_headers ?? {})
      }
      cache.set(row.subscription_id, entry)
      return entry
    })

  /** The signed request of one attempt (the timestamp is the claim's). */
  const request = (row: ClaimedRow, entry: CachedKeys, nowMs: number) => {
    const body = deliveryBody(row.envelope)
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
