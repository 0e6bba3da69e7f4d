import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Channels } from "./channels.js"
import { SandboxInbound } from "./sandbox-inbound.js"

export const DashboardChannelsLive = HttpApiBuilder.group(PlatformApi, "dashboardChannels", (handlers) =>
  Effect.gen(function*() {
    const channels = yield* Channels
    const sandbox = yield* SandboxInbound
    return handlers
      .handle("list", () => Effect.flatMap(CurrentSession, (s) => channels.listDashboard(s.account_id)))
      .handle("connectChat", ({ payload }) =>
        Effect.flatMap(CurrentSession, (s) => channels.connectChat(s.account_id, payload)))
      .handle("connectSocial", ({ payload }) =>
        Effect.flatMap(CurrentSession, (s) => channels.connectSocial(s.account_id, payload)))
      .handle("disconnect", ({ path }) => Effect.flatMap(CurrentSession, (s) => channels.disconnect(s.account_id, path.id)))
      .handle("webhook", ({ path, payload }) =>
        Effect.flatMap(CurrentSession, (s) => channels.configureWebhook(s.account_id, path.id, payload)))
      .handle("sandboxInbound", ({ payload }) => Effect.flatMap(CurrentSession, (s) => sandbox.inject(s.account_id, payload)))
  }))
