import { SqlClient } from "@effect/sql"
import { ChannelUnusable, NotFound } from "@platform/shared"
import { Effect } from "effect"
import { Secrets } from "../crypto/secrets.js"
import { crossProcessInvalidation } from "../db/cache-invalidation.js"
import { makeSingleFlight } from "../db/single-flight.js"
import { CHANNEL_CHANGES_NOTIFY } from "../inbound/channel-directory.js"
import type { ChannelCredentials } from "../upstream/credentials.js"

export interface UsableChannel {
  readonly id: number
  readonly account_id: number
  readonly type: "chat" | "social"
  readonly creds: ChannelCredentials
}

interface Row {
  readonly id: number
  readonly developer_account_id: number
  readonly type: "chat" | "social"
  readonly status: "connected" | "disconnected"
  readonly is_active: boolean
  readonly phone_number_id: string | null
  readonly waba_id: string | null
  readonly social_id: string | null
  readonly throughput_per_second: number | null
  readonly access_token_encrypted: Uint8Array | null
}

interface Entry {
  readonly channel: UsableChannel | null
  readonly expires: number
}

/*
 * A disconnect in this process drops the entry at once, one in another instance as
 * soon as its NOTIFY arrives (CHANNEL_CHANGES_NOTIFY). The TTL bounds how long a
 * disconnected channel's token can still be used here when a NOTIFY was missed.
 */
const TTL_MS = 5_000
const MAX_ENTRIES = 10_000

/**
 * The channel a send, read receipt or media call acts for, with its decrypted token,
 * cached in memory so the hot path neither queries nor decrypts per request. The
 * owner is part of the check: another account's channel is the same 404 as none.
 */
export class ChannelCredentialsCache extends Effect.Service<ChannelCredentialsCache>()(
  "@platform/server/ChannelCredentialsCache",
  {
    scoped: Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const secrets = yield* Secrets
      const entries = new Map<number, Entry>()
      // Sends that miss one channel at once (its entry just expired) share one load.
      const loads = makeSingleFlight<number, { channel: UsableChannel | null; row: Row | undefined }, never>()
      // Bumped by every invalidation: a load that started before one does not cache its answer.
      let generation = 0
      const forget = (channelId: number | undefined) => {
        generation++
        loads.forget(channelId)
        if (channelId === undefined) entries.clear()
        else entries.delete(channelId)
      }
      // A channel changed in another process (RESYNC: any of them may have).
      yield* crossProcessInvalidation(CHANNEL_CHANGES_NOTIFY, forget)

      const load = (channelId: number) =>
        loads.run(channelId, Effect.gen(function*() {
          const started = generation
          const [row] = yield* sql<Row>`
            select id, developer_account_id, type, status, is_active, phone_number_id, waba_id, social_id,
                   throughput_per_second, access_token_encrypted
            from platform_channels where id = ${channelId}`.pipe(Effect.orDie)
          let channel: UsableChannel | null = null
          if (row !== undefined && row.status === "connected" && row.is_active && row.access_token_encrypted !== null) {
            const token = yield* secrets.decrypt(row.access_token_encrypted)
            channel = {
              id: row.id,
              account_id: row.developer_account_id,
              type: row.type,
              creds: {
                kind: row.type,
                id: row.id,
                phone_number_id: row.phone_number_id ?? undefined,
                waba_id: row.waba_id ?? undefined,
                social_id: row.social_id ?? undefined,
                throughput_per_second: row.throughput_per_second ?? undefined,
                access_token: token
              }
            }
          }
          if (started === generation) {
            if (entries.size >= MAX_ENTRIES) entries.clear()
            entries.set(channelId, { channel, expires: Date.now() + TTL_MS })
          }
          return { channel, row }
        }))

      /** 404 when absent or another account's; 422 channel_unusable when disconnected or without a token. */
      const get = Effect.fn("ChannelCredentials.get")(function*(accountId: number, channelId: number) {
        const cached = entries.get(channelId)
        if (cached !== undefined && cached.expires > Date.now() && cached.channel !== null) {
          if (cached.channel.account_id !== accountId) return yield* new NotFound({ message: "channel not found" })
          return cached.channel
        }
        const { channel, row } = yield* load(channelId)
        if (row === undefined || row.developer_account_id !== accountId) {
          return yield* new NotFound({ message: "channel not found" })
        }
        if (channel === null) {
          return yield* new ChannelUnusable({
            message: row.status === "disconnected"
              ? "the channel is disconnected"
              : "the channel is inactive or has no credentials"
          })
        }
        return channel
      })

      /** Forget a channel now (disconnect, token change in this process). */
      const invalidate = (channelId: number) => Effect.sync(() => forget(channelId))

      return { get, invalidate } as const
    }),
    dependencies: [Secrets.Default]
  }
) {}
