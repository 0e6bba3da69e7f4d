import { SqlClient } from "@effect/sql"
import { Effect, Stream } from "effect"
import { crossProcessInvalidation } from "../db/cache-invalidation.js"
import { jsonbRows } from "../db/jsonb-rows.js"

/** A platform channel as the channel directory holds it: what never changes while it is connected. */
export interface RoutedChannel {
  readonly id: number
  readonly developer_account_id: number
  readonly type: "chat" | "social"
  readonly phone_number_id: string | null
  readonly waba_id: string | null
  readonly social_id: string | null
  readonly display_phone_number: string | null
}

/** The identifiers one POST names (DESIGN §5 "Upstream identifier"). */
export interface Identifiers {
  readonly phoneNumberIds: ReadonlyArray<string>
  readonly wabaIds: ReadonlyArray<string>
  readonly socialIds: ReadonlyArray<string>
}

export interface ChannelLookup {
  /** The chat channel of a `metadata.phone_number_id`. */
  readonly byPhoneNumberId: (id: string) => RoutedChannel | undefined
  /** Every active chat channel of a WABA (account-level fields without metadata). */
  readonly byWabaId: (id: string) => ReadonlyArray<RoutedChannel>
  /** The social channel of an Instagram account / Page id (`entry[].id`). */
  readonly bySocialId: (id: string) => RoutedChannel | undefined
}

interface Cached {
  readonly channels: ReadonlyArray<RoutedChannel>
  readonly expires: number
}

// A channel's id, account and identifiers never change while it is connected, so
// hits are kept a minute; the mutable columns (inbound_enabled, webhook_url,
// is_active) are re-read inside the persisting statement, which makes a stale
// hit harmless. Misses are kept only briefly so a channel connected in another
// process starts receiving within seconds; `invalidate` makes it immediate here.
const HIT_TTL_MS = 60_000
const MISS_TTL_MS = 5_000
const MAX_ENTRIES = 50_000

/**
 * The Postgres NOTIFY channel where a connect (RESYNC), disconnect or kill-switch
 * change (the channel's id) is announced to other processes: their channel
 * directories, channel lists and credentials forget it.
 */
export const CHANNEL_CHANGES_NOTIFY = "platform_channel_changes"

/** Every live directory of this process, so a channel change reaches them all at once. */
const directories = new Set<{
  readonly forget: (channelId?: number) => void
  readonly announce: (channelId?: number) => Effect.Effect<void>
}>()

/**
 * After a channel was connected, disconnected or its inbound switch changed (and
 * the change committed): forgets its cached routes (and every cached miss) in
 * this process at once, and NOTIFYs other processes, which do the same. Never fails.
 */
export const channelChanged = (channelId?: number): Effect.Effect<void> =>
  Effect.suspend(() => {
    let announce: Effect.Effect<void> = Effect.void
    for (const directory of directories) {
      directory.forget(channelId)
      announce = directory.announce(channelId)
    }
    return announce
  })

/**
 * Upstream identifier → platform channel, cached in memory (DESIGN §8: no
 * round trip per POST for an immutable lookup). One query fetches every
 * identifier of a POST that is not cached.
 */
export class ChannelDirectory extends Effect.Service<ChannelDirectory>()("@platform/server/ChannelDirectory", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cache = new Map<string, Cached>()

    const keyOf = (kind: "p" | "w" | "s", id: string) => `${kind}:${id}`

    // Ids as the POST named them; jsonbRows makes any of them storable (one Meta never sent matches no channel).
    const fetch = (missing: { p: Array<string>; w: Array<string>; s: Array<string> }) =>
      sql<RoutedChannel>`
        select id, developer_account_id, type, phone_number_id, waba_id, social_id, display_phone_number
        from platform_channels
        where is_active and (
          phone_number_id in (select jsonb_array_elements_text(${jsonbRows(missing.p)}::jsonb))
          or waba_id in (select jsonb_array_elements_text(${jsonbRows(missing.w)}::jsonb))
          or social_id in (select jsonb_array_elements_text(${jsonbRows(missing.s)}::jsonb)))`.pipe(Effect.orDie)

    const get = (kind: "p" | "w" | "s", id: string) => cache.get(keyOf(kind, id))?.channels ?? []
    const lookup: ChannelLookup = {
      byPhoneNumberId: (id) => get("p", id)[0],
      byWabaId: (id) => get("w", id),
      bySocialId: (id) => get("s", id)[0]
    }

    const missingOf = (ids: Identifiers) => {
      const now = Date.now()
      let missing: { p: Array<string>; w: Array<string>; s: Array<string> } | undefined
      const check = (kind: "p" | "w" | "s", list: ReadonlyArray<string>) => {
        for (const id of list) {
          const hit = cache.get(keyOf(kind, id))
          if (hit === undefined || hit.expires <= now) (missing ??= { p: [], w: [], s: [] })[kind].push(id)
        }
      }
      check("p", ids.phoneNumberIds)
      check("w", ids.wabaIds)
      check("s", ids.socialIds)
      return missing
    }

    /** The lookup when every identifier is cached (the hot path: no effect, no query), else undefined. */
    const cached = (ids: Identifiers): ChannelLookup | undefined => (missingOf(ids) === undefined ? lookup : undefined)

    const resolve = (ids: Identifiers): Effect.Effect<ChannelLookup> =>
      Effect.suspend(() => {
        const missing = missingOf(ids)
        if (missing === undefined) return Effect.succeed(lookup)
        return Effect.map(fetch(missing), (rows) => {
          const now = Date.now()
          if (cache.size > MAX_ENTRIES) cache.clear()
          const put = (kind: "p" | "w" | "s", id: string, channels: ReadonlyArray<RoutedChannel>) =>
            cache.set(keyOf(kind, id), { channels, expires: now + (channels.length > 0 ? HIT_TTL_MS : MISS_TTL_MS) })
          for (const id of missing.p) put("p", id, rows.filter((r) => r.type === "chat" && r.phone_number_id === id))
          for (const id of missing.w) put("w", id, rows.filter((r) => r.type === "chat" && r.waba_id === id))
          for (const id of missing.s) put("s", id, rows.filter((r) => r.type === "social" && r.social_id === id))
          return lookup
        })
      })

    const forget = (channelId?: number) => {
      if (channelId === undefined) return cache.clear()
      for (const [key, entry] of cache) {
        if (entry.channels.length === 0 || entry.channels.some((c) => c.id === channelId)) cache.delete(key)
      }
    }

    /** Forgets cached routes (all of them, or one channel's) after a connect, disconnect or identifier change. */
    const invalidate = (channelId?: number) => Effect.sync(() => forget(channelId))

    // Other processes' changes: RESYNC (every route changed) or one channel's.
    const announce = yield* crossProcessInvalidation(CHANNEL_CHANGES_NOTIFY, forget)

    const registration = { forget, announce }
    directories.add(registration)
    yield* Effect.addFinalizer(() => Effect.sync(() => directories.delete(registration)))

    return { resolve, cached, invalidate } as const
  })
}) {}
