import type { RequestOptions } from "../core/request.js"
import { APIResource, knownParams, seg } from "../resource.js"
import type {
  BlockUsersParams,
  BlockUsersResult,
  Channel,
  ChannelDisplayName,
  ChannelHealth,
  ChannelListParams,
  ChannelProfile,
  ChannelProfileUpdateParams,
  InboundSwitchParams,
  TwoFactorParams,
  TwoFactorResult
} from "../types.js"

const path = (channelId: number, edge: string) => `/platform/v1/channels/${seg(channelId)}/${edge}`

/** The account's connected channels (`/platform/v1/channels`). */
export class Channels extends APIResource {
  /** Lists the account's channels, newest first, optionally of one `type` (a plain array; needs the read:channels scope). */
  list(params: ChannelListParams = {}, options?: RequestOptions): Promise<ReadonlyArray<Channel>> {
    const query = knownParams("channels.list", params, ["type"])
    return this._client.request({ method: "GET", path: "/platform/v1/channels", query }, options)
  }

  /** Switches inbound processing of a channel on or off (the kill-switch; needs manage:channels) and returns the channel. */
  setInbound(channelId: number, body: InboundSwitchParams, options?: RequestOptions): Promise<Channel> {
    return this._client.request(
      { method: "PATCH", path: path(channelId, "inbound"), body, idempotent: true },
      options
    )
  }

  /** Probes whether a chat channel can send, overall and per entity (number, business account, business, app). */
  health(channelId: number, options?: RequestOptions): Promise<ChannelHealth> {
    return this._client.request({ method: "GET", path: path(channelId, "health") }, options)
  }

  /** Reads a chat channel's business profile. */
  getProfile(channelId: number, options?: RequestOptions): Promise<ChannelProfile> {
    return this._client.request({ method: "GET", path: path(channelId, "profile") }, options)
  }

  /** Updates the given fields of a chat channel's business profile (others stay unchanged) and returns the profile. */
  updateProfile(channelId: number, body: ChannelProfileUpdateParams, options?: RequestOptions): Promise<ChannelProfile> {
    return this._client.request({ method: "POST", path: path(channelId, "profile"), body, idempotent: true }, options)
  }

  /** Reads a chat channel's display name and its review state. */
  getDisplayName(channelId: number, options?: RequestOptions): Promise<ChannelDisplayName> {
    return this._client.request({ method: "GET", path: path(channelId, "display-name") }, options)
  }

  /**
   * Submits a new display name: always rejects with a `NotImplementedError` (501), since display names are
   * changed in the upstream's business manager. Kept so the route has a typed call.
   */
  submitDisplayName(channelId: number, options?: RequestOptions): Promise<never> {
    return this._client.request({ method: "POST", path: path(channelId, "display-name") }, options)
  }

  /** Blocks 1 to 1000 users from messaging a chat channel; the result lists who was blocked and who was refused. */
  blockUsers(channelId: number, body: BlockUsersParams, options?: RequestOptions): Promise<BlockUsersResult> {
    return this._client.request({ method: "POST", path: path(channelId, "block-users"), body, idempotent: true }, options)
  }

  /** Unblocks 1 to 1000 users of a chat channel; the result lists who was unblocked and who was refused. */
  unblockUsers(channelId: number, body: BlockUsersParams, options?: RequestOptions): Promise<BlockUsersResult> {
    return this._client.request({ method: "DELETE", path: path(channelId, "block-users"), body }, options)
  }

  /** Sets a chat channel's two-step verification PIN (exactly 6 digits); the PIN is never returned. */
  setTwoFactorPin(channelId: number, body: TwoFactorParams, options?: RequestOptions): Promise<TwoFactorResult> {
    return this._client.request({ method: "POST", path: path(channelId, "two-factor"), body, idempotent: true }, options)
  }
}
