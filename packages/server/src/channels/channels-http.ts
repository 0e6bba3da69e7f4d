import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { ChannelOperations } from "./channel-operations.js"
import { Channels } from "./channels.js"

// One response per cached body: the list route is hot and its body changes only when
// the channel-list cache refills, so neither the schema encode nor the response is
// rebuilt per request. Responses are immutable; headers added later make copies.
const responses = new WeakMap<Uint8Array, HttpServerResponse.HttpServerResponse>()
const responseOf = (body: Uint8Array) => {
  let response = responses.get(body)
  if (response === undefined) {
    response = HttpServerResponse.uint8Array(body, { contentType: "application/json" })
    responses.set(body, response)
  }
  return response
}

export const ChannelsLive = HttpApiBuilder.group(PlatformApi, "channels", (handlers) =>
  Effect.gen(function*() {
    const channels = yield* Channels
    const operations = yield* ChannelOperations
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handleRaw("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => Effect.map(channels.listJson(p.account_id, urlParams.type), responseOf)))
      .handle("setInbound", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => channels.setInbound(p.account_id, path.channel_id, payload.enabled)))
      .handle("health", ({ path }) => Effect.flatMap(account, (a) => operations.health(a, path.channel_id)))
      .handle("getProfile", ({ path }) => Effect.flatMap(account, (a) => operations.getProfile(a, path.channel_id)))
      .handle("updateProfile", ({ path, payload }) =>
        Effect.flatMap(account, (a) => operations.updateProfile(a, path.channel_id, payload)))
      .handle("getDisplayName", ({ path }) => Effect.flatMap(account, (a) => operations.getDisplayName(a, path.channel_id)))
      .handle("submitDisplayName", ({ path }) => Effect.flatMap(account, (a) => operations.submitDisplayName(a, path.channel_id)))
      .handle("blockUsers", ({ path, payload }) =>
        Effect.flatMap(account, (a) => operations.blockUsers(a, path.channel_id, payload.users)))
      .handle("unblockUsers", ({ path, payload }) =>
        Effect.flatMap(account, (a) => operations.unblockUsers(a, path.channel_id, payload.users)))
      .handle("setTwoFactorPin", ({ path, payload }) =>
        Effect.flatMap(account, (a) => operations.setTwoFactorPin(a, path.channel_id, payload.pin)))
  }))
