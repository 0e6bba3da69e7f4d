import { HttpApiBuilder } from "@effect/platform"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Channels } from "../domain/channels.js"

export const ChannelsLive = HttpApiBuilder.group(PlatformApi, "channels", (handlers) =>
  Effect.gen(function*() {
    const channels = yield* Channels
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => channels.list(p.account_id, urlParams.type)))
      .handle("setInbound", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => channels.setInbound(p.account_id, path.channel_id, payload.enabled)))
  }))
