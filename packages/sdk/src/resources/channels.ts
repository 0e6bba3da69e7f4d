import type { RequestOptions } from "../core/request.js"
import { APIResource, knownParams, seg } from "../resource.js"
import type { Channel, ChannelListParams, InboundSwitchParams } from "../types.js"

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
      { method: "PATCH", path: `/platform/v1/channels/${seg(channelId)}/inbound`, body, idempotent: true },
      options
    )
  }
}
