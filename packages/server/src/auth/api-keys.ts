import { SqlClient } from "@effect/sql"
import {
  type ApiKey,
  type ApiKeyCreate,
  type ApiKeyCreated,
  type ApiKeyPatch,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  NotFound,
  type Principal,
  type Scope,
  Scopes,
  ValidationFailed
} from "@platform/shared"
import { Cause, Effect, Schedule } from "effect"
import { makeSingleFlight } from "../db/single-flight.js"
import { displayPrefix, generateApiKey, hashApiKey, hashApiKeyHex, looksLikeApiKey } from "../crypto/api-key-format.js"
import { crossProcessInvalidation } from "../db/cache-invalidation.js"
import { hasConnectionFault } from "../db/connection-fault.js"
import { outageWatch } from "../db/outage.js"

interface KeyRow {
  readonly id: number
  readonly name: string
  readonly prefix: string
  readonly scopes: ReadonlyArray<Scope>
  readonly is_active: boolean
  readonly expires_at: Date | null
  readonly last_used_at: Date | null
  readonly rate_limit_per_minute: number
  readonly created_at: Date
}

/** What the authentication hot path needs to know about a key. */
export interface KeyRecord {
  readonly id: number
  readonly account_id: number
  readonly scopes: ReadonlyArray<Scope>
  readonly is_active: boolean
  /** Epoch ms, or null for no expiry. */
  readonly expires_at: number | null
  readonly rate_limit_per_minute: number
  /** Rate-limit bucket: a prefix of the key's hash, unique across databases sharing one Redis. */
  readonly bucket: string
  /** The CurrentPrincipal of this key, built once per cache fill. */
  readonly principal: Principal
}

const toApiKey = (row: KeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  is_active: row.is_active,
  expires_at: row.expires_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
  rate_limit_per_minute: row.rate_limit_per_minute,
  created_at: row.created_at.toISOString()
})

/*
 * Lookups are cached briefly so an authenticated request costs no query on the hot
 * path. PATCH and DELETE invalidate in this process at once, and in every other
 * instance on real PostgreSQL as soon as their NOTIFY arrives (KEYS_CHANNEL); an
 * instance that missed it (its LISTEN connection lost) forgets every key, and in
 * any case sees a change within CACHE_TTL_MS. Expiry is checked on every request against the cached
 * expires_at, so it is exact. Unknown keys are cached for a shorter time so a 401
 * storm of one bad key does not turn into a query storm.
 */
const CACHE_TTL_MS = 5_000
/** Where a PATCH or DELETE of a key is announced to other instances (payload: the key's id). */
const KEYS_CHANNEL = "platform_api_keys"
const NEGATIVE_TTL_MS = 1_000
const CACHE_MAX = 50_000
/** last_used_at resolution: writes are batched and at most one per key per flush. */
export const LAST_USED_FLUSH_MS = 1_000

const columns = "id, name, prefix, scopes, is_active, expires_at, last_used_at, rate_limit_per_minute, created_at"

/** API keys: creation (plaintext once), listing, PATCH, DELETE, and the cached lookup used by ApiKeyAuth. */
export class ApiKeys extends Effect.Service<ApiKeys>()("@platform/server/ApiKeys", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cache = new Map<string, { readonly record: KeyRecord | null; readonly at: number }>()
    const hashById = new Map<number, string>()
    const pendingTouches = new Map<number, number>()
    // Requests that miss one key at once (its entry just expired) share one query.
    const lookups = makeSingleFlight<string, KeyRecord | null, never>()
    // Bumped by every invalidation: a lookup that started before one does not cache its answer.
    let generation = 0

    const invalidate = (id?: number) => {
      generation++
      // A change in flight: whoever asks after it queries afresh.
      lookups.forget()
      if (id === undefined) {
        cache.clear()
        hashById.clear()
        return
      }
      const hash = hashById.get(id)
      if (hash !== undefined) {
        cache.delete(hash)
        hashById.delete(id)
      }
    }
    const announce = yield* crossProcessInvalidation(KEYS_CHANNEL, invalidate)
    /** After a key's change committed: forgotten here at once, and by every other instance once the NOTIFY arrives. */
    const changed = (id: number) => Effect.zipRight(Effect.sync(() => invalidate(id)), announce(id))

    const create = Effect.fn("ApiKeys.create")(function*(accountId: number, input: ApiKeyCreate) {
      // A key born expired answers 401 to its first request; a PATCH may still set a past expiry to end a key.
      if (input.expires_at != null && Date.parse(input.expires_at) <= Date.now()) {
        return yield* new ValidationFailed({
          detail: [{
            loc: ["body", "expires_at"],
            msg: "must be in the future",
            type: "value_error",
            input: input.expires_at,
            ctx: {}
          }]
        })
      }
      const plaintext = generateApiKey()
      const scopes = input.scopes === undefined ? [...Scopes] : [...new Set(input.scopes)]
      const [row] = yield* sql<KeyRow>`
        insert into api_keys (developer_account_id, name, prefix, key_hash, scopes, expires_at, rate_limit_per_minute)
        values (${accountId}, ${input.name}, ${displayPrefix(plaintext)}, ${hashApiKey(plaintext)}, ${scopes},
                ${input.expires_at ? new Date(input.expires_at) : null},
                ${input.rate_limit_per_minute ?? DEFAULT_RATE_LIMIT_PER_MINUTE})
        returning ${sql.literal(columns)}`.pipe(Effect.orDie)
      return { ...toApiKey(row!), key: plaintext } satisfies ApiKeyCreated
    })

    const list = Effect.fn("ApiKeys.list")(function*(accountId: number) {
      const rows = yield* sql<KeyRow>`
        select ${sql.literal(columns)} from api_keys where developer_account_id = ${accountId} order by id desc`.pipe(
        Effect.orDie
      )
      return rows.map(toApiKey)
    })

    const update = Effect.fn("ApiKeys.update")(function*(accountId: number, id: number, patch: ApiKeyPatch) {
      const set: Record<string, unknown> = {}
      if (patch.name !== undefined) set.name = patch.name
      if (patch.is_active !== undefined) set.is_active = patch.is_active
      if (patch.expires_at !== undefined) set.expires_at = patch.expires_at === null ? null : new Date(patch.expires_at)
      if (patch.rate_limit_per_minute !== undefined) set.rate_limit_per_minute = patch.rate_limit_per_minute
      const rows = yield* sql<KeyRow>`
        update api_keys set ${sql.update({ ...set, updated_at: new Date() })}
        where id = ${id} and developer_account_id = ${accountId}
        returning ${sql.literal(columns)}`.pipe(Effect.orDie)
      if (rows.length === 0) return yield* new NotFound({ message: "API key not found" })
      yield* changed(id)
      return toApiKey(rows[0]!)
    })

    const remove = Effect.fn("ApiKeys.remove")(function*(accountId: number, id: number) {
      const rows = yield* sql`delete from api_keys where id = ${id} and developer_account_id = ${accountId} returning id`
        .pipe(Effect.orDie)
      if (rows.length === 0) return yield* new NotFound({ message: "API key not found" })
      yield* changed(id)
    })

    const fresh = (hex: string) => {
      const hit = cache.get(hex)
      return hit !== undefined && Date.now() - hit.at < (hit.record === null ? NEGATIVE_TTL_MS : CACHE_TTL_MS)
        ? hit
        : undefined
    }

    /**
     * The cached answer for a plaintext without building an Effect (the hot path of every
     * keyed request): the record, null for an unknown key, undefined when `lookup` must ask.
     */
    const lookupCached = (plaintext: string): KeyRecord | null | undefined =>
      looksLikeApiKey(plaintext) ? fresh(hashApiKeyHex(plaintext))?.record : null

    /** The key record of a plaintext, or null when unknown. Validity (active, expiry) is the caller's check. */
    const lookup = (plaintext: string): Effect.Effect<KeyRecord | null> => {
      if (!looksLikeApiKey(plaintext)) return Effect.succeed(null)
      const hex = hashApiKeyHex(plaintext)
      const hit = fresh(hex)
      if (hit !== undefined) return Effect.succeed(hit.record)
      const hash = Buffer.from(hex, "hex")
      const started = generation
      return lookups.run(hex, sql<{
        id: number
        developer_account_id: number
        scopes: ReadonlyArray<Scope>
        is_active: boolean
        expires_at: Date | null
        rate_limit_per_minute: number
      }>`
        select id, developer_account_id, scopes, is_active, expires_at, rate_limit_per_minute
        from api_keys where key_hash = ${hash}`.pipe(
        Effect.orDie,
        Effect.map(([row]) => {
          const record: KeyRecord | null = row === undefined ? null : {
            id: row.id,
            account_id: row.developer_account_id,
            scopes: row.scopes,
            is_active: row.is_active,
            expires_at: row.expires_at?.getTime() ?? null,
            rate_limit_per_minute: row.rate_limit_per_minute,
            bucket: `v1:key:${hex.slice(0, 32)}`,
            principal: { account_id: row.developer_account_id, api_key_id: row.id, user_id: null, scopes: row.scopes }
          }
          if (started !== generation) return record
          if (cache.size >= CACHE_MAX) {
            cache.clear()
            hashById.clear()
          }
          cache.set(hex, { record, at: Date.now() })
          if (record !== null) hashById.set(record.id, hex)
          return record
        })
      ))
    }

    /** Records use of a key; written in batches (one statement per flush), never on the request path. */
    const touch = (id: number) => {
      pendingTouches.set(id, Date.now())
    }

    // While the database is unreachable the uses of cached keys are kept for the next
    // flush, and the outage is logged once, not at every flush.
    const outage = outageWatch("API key use flush")
    const flush = Effect.suspend(() => {
      if (pendingTouches.size === 0) return Effect.void
      const ids = [...pendingTouches.keys()]
      const times = ids.map((id) => pendingTouches.get(id)!)
      pendingTouches.clear()
      return sql`
        update api_keys k set last_used_at = greatest(coalesce(k.last_used_at, t.at), t.at)
        from unnest(${ids}::bigint[], ${times.map((t) => new Date(t).toISOString())}::timestamptz[]) as t(id, at)
        where k.id = t.id`.pipe(
        Effect.zipRight(outage.reached),
        Effect.catchAllCause((cause) =>
          hasConnectionFault(cause)
            ? Effect.sync(() => {
              for (const [n, id] of ids.entries()) pendingTouches.set(id, Math.max(times[n]!, pendingTouches.get(id) ?? 0))
            }).pipe(Effect.zipRight(outage.failed(cause)))
            : Effect.logWarning("could not record API key use", String(Cause.squash(cause)))
        )
      )
    })

    yield* Effect.addFinalizer(() => flush)
    yield* flush.pipe(Effect.repeat(Schedule.spaced(LAST_USED_FLUSH_MS)), Effect.forkScoped)

    return { create, list, update, remove, lookup, lookupCached, touch, flush, invalidate } as const
  })
}) {}
