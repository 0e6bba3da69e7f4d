import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A platform channel as the inbound router sees it: what never changes while it is connected. */
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
 * Upstream identifier → platform channel, cached in memory (DESIGN §8: no
 * round trip per POST for an immutable lookup). One query fetches every
 * identifier of a POST that is not cached.
 */
export class ChannelDirectory extends Effect.Service<ChannelDirectory>()("@platform/server/ChannelDirectory", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cache = new Map<string, Cached>()

    const keyOf = (kind: "p" | "w" | "s", id: string) => `${kind}:${id}`

    const fetch = (missing: { p: Array<string>; w: Array<string>; s: Array<string> }) =>
      sql<RoutedChannel>`
        select id, developer_account_id, type, phone_number_id, waba_id, social_id, display_phone_number
        from platform_channels
        where is_active and (
          phone_number_id in (select jsonb_array_elements_text(${JSON.stringify(missing.p)}::jsonb))
          or waba_id in (select jsonb_array_elements_text(${JSON.stringify(missing.w)}::jsonb))
          or social_id in (select jsonb_array_elements_text(${JSON.stringify(missing.s)}::jsonb)))`.pipe(Effect.orDie)

    const resolve = Effect.fn("ChannelDirectory.resolve")(function*(ids: Identifiers) {
      const now = Date.now()
      const missing = { p: [] as Array<string>, w: [] as Array<string>, s: [] as Array<string> }
      const check = (kind: "p" | "w" | "s", list: ReadonlyArray<string>) => {
        for (const id of list) {
          const hit = cache.get(keyOf(kind, id))
          if (hit === undefined || hit.expires <= now) missing[kind].push(id)
        }
      }
      check("p", ids.phoneNumberIds)
      check("w", ids.wabaIds)
      check("s", ids.socialIds)
      if (missing.p.length + missing.w.length + missing.s.length > 0) {
        const rows = yield* fetch(missing)
        if (cache.size > MAX_ENTRIES) cache.clear()
        const put = (kind: "p" | "w" | "s", id: string, channels: ReadonlyArray<RoutedChannel>) =>
          cache.set(keyOf(kind, id), { channels, expires: now + (channels.length > 0 ? HIT_TTL_MS : MISS_TTL_MS) })
        for (const id of missing.p) put("p", id, rows.filter((r) => r.type === "chat" && r.phone_number_id === id))
        for (const id of missing.w) put("w", id, rows.filter((r) => r.type === "chat" && r.waba_id === id))
        for (const id of missing.s) put("s", id, rows.filter((r) => r.type === "social" && r.social_id === id))
      }
      const get = (kind: "p" | "w" | "s", id: string) => cache.get(keyOf(kind, id))?.channels ?? []
      return {
        byPhoneNumberId: (id) => get("p", id)[0],
        byWabaId: (id) => get("w", id),
        bySocialId: (id) => get("s", id)[0]
      } satisfies ChannelLookup
    })

    /** Forgets cached routes (all of them, or one channel's) after a connect, disconnect or identifier change. */
    const invalidate = (channelId?: number) =>
      Effect.sync(() => {
        if (channelId === undefined) return cache.clear()
        for (const [key, entry] of cache) {
          if (entry.channels.length === 0 || entry.channels.some((c) => c.id === channelId)) cache.delete(key)
        }
      })

    return { resolve, invalidate } as const
  })
}) {}
