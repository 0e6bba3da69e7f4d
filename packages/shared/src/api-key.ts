import { Schema } from "effect"
import { Id, Label, Timestamp, optional, requestBody } from "./common.js"
import { RATE_LIMIT_PER_MINUTE_MAX } from "./limits.js"
import { Scope } from "./scopes.js"

/** API key as listed in the dashboard; the plaintext is never part of it (SPEC §5.1). */
export const ApiKey = Schema.Struct({
  id: Id,
  name: Schema.String,
  prefix: Schema.String,
  scopes: Schema.Array(Scope),
  is_active: Schema.Boolean,
  expires_at: Schema.NullOr(Timestamp),
  last_used_at: Schema.NullOr(Timestamp),
  rate_limit_per_minute: Schema.Int,
  created_at: Timestamp
}).annotations({ identifier: "ApiKey" })
export type ApiKey = typeof ApiKey.Type

/** Plaintext key format: `pk_live_` and at least 32 base62 characters. */
export const ApiKeyPlaintext = Schema.String.pipe(Schema.pattern(/^pk_live_[0-9A-Za-z]{32,}$/))

/** Creation response: the key plus its plaintext, shown this once. */
export const ApiKeyCreated = Schema.Struct({ ...ApiKey.fields, key: ApiKeyPlaintext }).annotations({
  identifier: "ApiKeyCreated"
})
export type ApiKeyCreated = typeof ApiKeyCreated.Type

const RateLimitPerMinute = Schema.Int.pipe(
  Schema.between(1, RATE_LIMIT_PER_MINUTE_MAX, {
    message: () => `must be an integer from 1 to ${RATE_LIMIT_PER_MINUTE_MAX.toLocaleString("en-US")}`
  })
)

/** A key's label, at most 200 characters (like account and user names). */
const KeyName = Label(200)

/** POST /dashboard/api-keys; scopes default to all 11 (a key with none could call nothing). */
export const ApiKeyCreate = requestBody(
  Schema.Struct({
    name: KeyName,
    scopes: optional(
      Schema.Array(Scope).pipe(
        Schema.minItems(1, { message: () => "must name at least one scope (omit scopes for all 11)" })
      )
    ),
    expires_at: optional(Schema.NullOr(Timestamp)),
    rate_limit_per_minute: optional(RateLimitPerMinute)
  }),
  "ApiKeyCreate"
)
export type ApiKeyCreate = typeof ApiKeyCreate.Type

/** PATCH /dashboard/api-keys/{id}; scopes are fixed at creation. */
export const ApiKeyPatch = requestBody(
  Schema.Struct({
    name: optional(KeyName),
    is_active: optional(Schema.Boolean),
    expires_at: optional(Schema.NullOr(Timestamp)),
    rate_limit_per_minute: optional(RateLimitPerMinute)
  }),
  "ApiKeyPatch"
)
export type ApiKeyPatch = typeof ApiKeyPatch.Type
