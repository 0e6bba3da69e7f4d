import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type * as HttpMethod from "@effect/platform/HttpMethod"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import {
  BlockUsers,
  BlockUsersResult,
  Channel,
  ChannelDisplayName,
  ChannelHealth,
  ChannelProfile,
  ChannelProfileUpdate,
  ChannelType,
  InboundSwitch,
  TwoFactor,
  TwoFactorResult
} from "../channel.js"
import { noQueryParams, optional, queryParams } from "../common.js"
import { BadRequest, ChannelUnusable, ChatOnly, NotFound, NotImplemented, UpstreamFailure, ValidationFailed, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const ChannelIdPath = Schema.Struct({ channel_id: PathId("The channel's id") })

/**
 * A chat-only channel operation (SPEC §4.8): the channel id in the path, and what
 * every one of them can answer besides its success.
 */
const chatOperation = <Name extends string, Method extends HttpMethod.HttpMethod>(endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method>) =>
  endpoint
    .setPath(ChannelIdPath)
    .setUrlParams(noQueryParams)
    .addError(wire(NotFound))
    .addError(wire(ChatOnly))
    .addError(wire(BadRequest))
    .addError(wire(ChannelUnusable))
    .addError(wire(ValidationFailed))
    .addError(wire(UpstreamFailure))

/** DESIGN's error shape with any code. */
const codedError = {
  type: "object",
  required: ["detail"],
  properties: {
    detail: { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } }
  }
}

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
    chatOperation(HttpApiEndpoint.get("health", "/platform/v1/channels/:channel_id/health"))
      .addSuccess(ChannelHealth)
      .annotate(OpenApi.Summary, "Probe whether the channel can send, per entity (number, business account, business, app)")
  )
  .add(
    chatOperation(HttpApiEndpoint.get("getProfile", "/platform/v1/channels/:channel_id/profile"))
      .addSuccess(ChannelProfile)
      .annotate(OpenApi.Summary, "Read the channel's business profile")
  )
  .add(
    chatOperation(HttpApiEndpoint.post("updateProfile", "/platform/v1/channels/:channel_id/profile"))
      .setPayload(ChannelProfileUpdate)
      .addSuccess(ChannelProfile)
      .annotate(OpenApi.Summary, "Update the channel's business profile")
      .annotate(
        OpenApi.Description,
        "Only the fields given are sent upstream; omitted ones stay unchanged (`{}` changes nothing). " +
          "Answers the profile as the upstream holds it afterwards."
      )
  )
  .add(
    chatOperation(HttpApiEndpoint.get("getDisplayName", "/platform/v1/channels/:channel_id/display-name"))
      .addSuccess(ChannelDisplayName)
      .annotate(OpenApi.Summary, "Read the channel's display name and its review state")
  )
  .add(
    chatOperation(HttpApiEndpoint.post("submitDisplayName", "/platform/v1/channels/:channel_id/display-name"))
      .addError(wire(NotImplemented))
      // HttpApi documents a 204 for an endpoint without a success schema; this one never succeeds,
      // so its `default` (what stands for the success a lint wants) says so instead.
      .annotate(OpenApi.Transform, ({ responses, ...op }) => ({
        ...op,
        responses: {
          ...Object.fromEntries(Object.entries(responses as Record<string, unknown>).filter(([status]) => status !== "204")),
          default: {
            description: "Never a success: any status not listed is an error of DESIGN's shape `{detail: {code, message}}`",
            content: { "application/json": { schema: codedError } }
          }
        }
      }))
      .annotate(OpenApi.Summary, "Submit a new display name: always 501 not_implemented")
      .annotate(
        OpenApi.Description,
        "The upstream manages display-name changes in its own business manager, so this answers 501 " +
          "`not_implemented` for an owned chat channel (404, 400 chat_only and 422 channel_unusable first)."
      )
  )
  .add(
    chatOperation(HttpApiEndpoint.post("blockUsers", "/platform/v1/channels/:channel_id/block-users"))
      .setPayload(BlockUsers)
      .addSuccess(BlockUsersResult)
      .annotate(OpenApi.Summary, "Block 1 to 1000 users from messaging the channel")
      .annotate(OpenApi.Description, "Per user: blocked, or failed with the upstream's reasons (a 200 either way).")
  )
  .add(
    chatOperation(HttpApiEndpoint.del("unblockUsers", "/platform/v1/channels/:channel_id/block-users"))
      .setPayload(BlockUsers)
      .addSuccess(BlockUsersResult)
      .annotate(OpenApi.Summary, "Unblock 1 to 1000 users (JSON body `{users}`)")
  )
  .add(
    chatOperation(HttpApiEndpoint.post("setTwoFactorPin", "/platform/v1/channels/:channel_id/two-factor"))
      .setPayload(TwoFactor)
      .addSuccess(TwoFactorResult)
      .annotate(OpenApi.Summary, "Set the channel's two-step verification PIN (6 digits)")
      .annotate(OpenApi.Description, "The PIN is never returned, logged or echoed in a 422.")
  )
  .add(
    HttpApiEndpoint.patch("setInbound", "/platform/v1/channels/:channel_id/inbound")
      .setPath(ChannelIdPath)
      .setUrlParams(noQueryParams)
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
