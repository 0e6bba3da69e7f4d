import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Channel, ChannelType, InboundSwitch } from "../channel.js"
import { optional, queryParams } from "../common.js"
import { NotFound, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const ChannelIdPath = Schema.Struct({ channel_id: PathId("The channel's id") })

/**
 * `/platform/v1/channels`: the list (read:channels, key only) and the per-channel
 * operations (manage:channels, key or cookie: the group default). Paths are written
 * out in full so that endpoints added later need no prefix call.
 */
export class ChannelsGroup extends HttpApiGroup.make("channels")
  .add(
    HttpApiEndpoint.get("list", "/platform/v1/channels")
      .setUrlParams(queryParams(Schema.Struct({
        type: optional(Schema.Literal(...ChannelType.literals).annotations({ description: "Only channels of this kind: `chat` or `social`." }))
      })))
      .addSuccess(Schema.Array(Channel))
      .annotate(RequiredScope, "read:channels")
      .annotate(CookieAllowed, false)
      .annotate(OpenApi.Summary, "List the account's channels, newest first")
      .annotate(
        OpenApi.Description,
        "Plain array, `[]` when none. Never carries token material. Requires read:channels; key only."
      )
  )
  .add(
    HttpApiEndpoint.patch("setInbound", "/platform/v1/channels/:channel_id/inbound")
      .setPath(ChannelIdPath)
      .setPayload(InboundSwitch)
      .addSuccess(Channel)
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Switch inbound processing of a channel on or off (kill-switch)")
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:channels")
  .annotate(CookieAllowed, true)
  .annotate(OpenApi.Title, "Channels")
  .annotate(OpenApi.Description, "The account's chat (WhatsApp) and social (Instagram, Messenger) channels.")
{}
