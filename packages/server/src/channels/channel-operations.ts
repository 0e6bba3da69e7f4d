import {
  BadRequest,
  type BlockUsersResult,
  type ChannelDisplayName,
  type ChannelHealth,
  type ChannelProfile,
  type ChannelProfileUpdate,
  ChatOnly,
  NotImplemented,
  type TwoFactorResult,
  UpstreamFailure
} from "@platform/shared"
import { Effect } from "effect"
import type { BlockResult, BusinessProfile } from "../upstream/business.js"
import { toSendErrorBody, type UpstreamCallError, type UpstreamRequestInvalid } from "../upstream/errors.js"
import { Upstream } from "../upstream/upstream.js"
import { ChannelCredentialsCache } from "./channel-credentials.js"

/*
 * The 502 of these routes is the coded body (DESIGN §5), carrying the same
 * classification and Meta fields as the send 502, already scrubbed of tokens and
 * secrets by the gateway.
 */
const upstreamFailed = (what: string) => (e: UpstreamCallError | UpstreamRequestInvalid) => {
  if (e._tag === "UpstreamRequestInvalid") {
    return e.code === "chat_only" ? new ChatOnly({ message: e.message }) : new BadRequest({ message: e.message })
  }
  const { message, ...fields } = toSendErrorBody(e)
  return new UpstreamFailure({ message: `${what} failed at the upstream: ${message}`, ...fields })
}

const toProfile = (channelId: number, p: BusinessProfile): ChannelProfile => ({ channel_id: channelId, ...p })

const toBlockResult = (channelId: number, r: BlockResult): BlockUsersResult => ({
  channel_id: channelId,
  succeeded: r.succeeded.map((u) => ({ user: u.input, wa_id: u.wa_id })),
  failed: r.failed.map((u) => ({ user: u.input, errors: u.errors }))
})

/**
 * The operations on a connected channel (SPEC §4.8), all chat-only: health, business
 * profile, display name, user blocking and the two-step PIN. The channel is looked
 * up with its owner (a foreign id is the same 404 as a missing one) and must be
 * usable (422 channel_unusable, as on send); a social channel is 400 chat_only
 * before any upstream call.
 */
export class ChannelOperations extends Effect.Service<ChannelOperations>()("@platform/server/ChannelOperations", {
  effect: Effect.gen(function*() {
    const channels = yield* ChannelCredentialsCache
    const upstream = yield* Upstream

    const chatChannel = (accountId: number, channelId: number) =>
      Effect.flatMap(channels.get(accountId, channelId), (channel) =>
        channel.type === "chat"
          ? Effect.succeed(channel)
          : Effect.fail(new ChatOnly({ message: "channel operations other than inbound are supported only on chat channels" })))

    const health = Effect.fn("ChannelOperations.health")(function*(accountId: number, channelId: number) {
      const channel = yield* chatChannel(accountId, channelId)
      const status = yield* upstream.getHealth(channel.creds).pipe(Effect.mapError(upstreamFailed("health")))
      return {
        channel_id: channel.id,
        can_send_message: status.can_send_message,
        entities: status.entities.map((e) => ({
          entity_type: e.entity_type,
          can_send_message: e.can_send_message,
          errors: (e.errors ?? []).map((x) => ({
            error_code: x.error_code !== undefined && Number.isInteger(x.error_code) ? x.error_code : null,
            error_description: x.error_description ?? null,
            possible_solution: x.possible_solution ?? null
          })),
          additional_info: e.additional_info ?? []
        }))
      } satisfies ChannelHealth
    })

    const getProfile = Effect.fn("ChannelOperations.getProfile")(function*(accountId: number, channelId: number) {
      const channel = yield* chatChannel(accountId, channelId)
      const profile = yield* upstream.getBusinessProfile(channel.creds).pipe(Effect.mapError(upstreamFailed("profile read")))
      return toProfile(channel.id, profile)
    })

    /*
     * Only the given fields go upstream (an empty body sends nothing); the answer is
     * the profile read back, so a client sees what the upstream kept (a picture
     * handle becomes a URL).
     */
    const updateProfile = Effect.fn("ChannelOperations.updateProfile")(
      function*(accountId: number, channelId: number, update: ChannelProfileUpdate) {
        const channel = yield* chatChannel(accountId, channelId)
        if (Object.keys(update).length > 0) {
          yield* upstream.updateBusinessProfile(channel.creds, update).pipe(Effect.mapError(upstreamFailed("profile update")))
        }
        const profile = yield* upstream.getBusinessProfile(channel.creds).pipe(Effect.mapError(upstreamFailed("profile read")))
        return toProfile(channel.id, profile)
      }
    )

    const getDisplayName = Effect.fn("ChannelOperations.getDisplayName")(function*(accountId: number, channelId: number) {
      const channel = yield* chatChannel(accountId, channelId)
      const name = yield* upstream.getDisplayName(channel.creds).pipe(Effect.mapError(upstreamFailed("display-name read")))
      return { channel_id: channel.id, ...name } satisfies ChannelDisplayName
    })

    const submitDisplayName = Effect.fn("ChannelOperations.submitDisplayName")(function*(accountId: number, channelId: number) {
      yield* chatChannel(accountId, channelId)
      return yield* new NotImplemented({
        message: "display-name changes are submitted and reviewed in the upstream's business manager, not through this API"
      })
    })

    /** Users are sent once each, in the order given (Meta answers per user either way). */
    const block = (blocking: boolean) =>
      Effect.fn(blocking ? "ChannelOperations.blockUsers" : "ChannelOperations.unblockUsers")(
        function*(accountId: number, channelId: number, users: ReadonlyArray<string>) {
          const channel = yield* chatChannel(accountId, channelId)
          const unique = [...new Set(users)]
          const result = yield* (blocking ? upstream.blockUsers : upstream.unblockUsers)(channel.creds, unique).pipe(
            Effect.mapError(upstreamFailed(blocking ? "block users" : "unblock users"))
          )
          return toBlockResult(channel.id, result)
        }
      )

    /** The PIN goes to the upstream as a secret of the call: scrubbed from any error text or log line. */
    const setTwoFactorPin = Effect.fn("ChannelOperations.setTwoFactorPin")(
      function*(accountId: number, channelId: number, pin: string) {
        const channel = yield* chatChannel(accountId, channelId)
        yield* upstream.setTwoStepPin(channel.creds, pin).pipe(Effect.mapError(upstreamFailed("two-factor PIN")))
        return { channel_id: channel.id, two_factor_enabled: true } satisfies TwoFactorResult
      }
    )

    return {
      health,
      getProfile,
      updateProfile,
      getDisplayName,
      submitDisplayName,
      blockUsers: block(true),
      unblockUsers: block(false),
      setTwoFactorPin
    } as const
  }),
  dependencies: [ChannelCredentialsCache.Default]
}) {}
