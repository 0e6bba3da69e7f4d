import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import { PlatformApi } from "@platform/shared"
import { Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import { ApiKeyAuthLive } from "../auth/api-key-auth.js"
import { DashboardAuthLive, SameOriginLive } from "../auth/dashboard-auth.js"
import { AppConfig } from "../config.js"
import { DeliveryDomainLive } from "../domain/delivery-layer.js"
import { DomainLive } from "../domain/layer.js"
import { InboundLive } from "../inbound/route.js"
import { SandboxRoutesLive } from "../upstream/live.js"
import { BodyLimitMiddleware } from "./body-limit.js"
import { BroadcastsLive } from "./broadcasts.js"
import { ChannelsLive } from "./channels.js"
import { ContactsLive } from "./contacts.js"
import { ConversationsLive } from "./conversations.js"
import { DashboardAccountLive } from "./dashboard-account.js"
import { DashboardApiKeysLive } from "./dashboard-api-keys.js"
import { DashboardChannelsLive } from "./dashboard-channels.js"
import { DashboardSessionLive } from "./dashboard-session.js"
import { DashboardTeamLive } from "./dashboard-team.js"
import { Draining } from "./draining.js"
import { EventsStreamLive } from "./events-stream.js"
import { nodeServerLayer } from "./front-routes.js"
import { HealthLive } from "./health.js"
import { InputGuardLive } from "./input-guard.js"
import { MediaDownloadRoute, MediaLive } from "./media.js"
import { MessageHistoryLive } from "./message-history.js"
import { MessagesLive } from "./messages.js"
import { TemplatesLive } from "./templates.js"
import { RequestContextMiddleware, requestsInFlight } from "./request-context.js"
import { ValidationMiddleware } from "./validation.js"
import { DeliveriesLive } from "./webhook-deliveries.js"
import { SubscriptionsLive } from "./webhook-subscriptions.js"

/** Every implemented group of the contract. */
export const ApiLive = HttpApiBuilder.api(PlatformApi).pipe(
  Layer.provide([
    HealthLive,
    ChannelsLive,
    MessagesLive,
    MediaLive,
    TemplatesLive,
    SubscriptionsLive,
    DeliveriesLive,
    MessageHistoryLive,
    ConversationsLive,
    ContactsLive,
    BroadcastsLive,
    EventsStreamLive,
    DashboardSessionLive,
    DashboardAccountLive,
    DashboardApiKeysLive,
    DashboardTeamLive,
    DashboardChannelsLive
  ]),
  Layer.provide([ApiKeyAuthLive, DashboardAuthLive, SameOriginLive, InputGuardLive])
)

/** The routes and middleware of the HTTP surface, without a listener. */
export const HttpAppLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/platform/v1/openapi.json" }),
  HttpApiScalar.layer({ path: "/platform/v1/docs" }),
  ValidationMiddleware,
  BodyLimitMiddleware,
  RequestContextMiddleware,
  InboundLive,
  MediaDownloadRoute,
  SandboxRoutesLive
).pipe(
  Layer.provideMerge(ApiLive),
  Layer.provideMerge(Draining.Default),
  Layer.provideMerge(DeliveryDomainLive),
  Layer.provideMerge(DomainLive)
)

const DRAIN_TIMEOUT_MS = 15_000

// On shutdown: stop accepting connections, end the event streams, let in-flight
// requests finish (up to DRAIN_TIMEOUT_MS), then close what is left. This
// finalizer runs before the server's own, which would otherwise interrupt
// requests mid-way.
const drain = (server: Server, draining: Draining) =>
  draining.begin.pipe(Effect.zipRight(Effect.promise(async () => {
    server.close()
    const deadline = Date.now() + DRAIN_TIMEOUT_MS
    while (requestsInFlight() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    server.closeAllConnections()
  })), Effect.zipRight(Effect.logInfo("http server drained")))

/** Serves the HTTP surface on HOST:PORT, logging the address once listening; drains on shutdown. */
export const HttpLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const server = createServer()
  const drainOnClose = Effect.flatMap(Draining, (draining) => Effect.addFinalizer(() => drain(server, draining)))
  return Layer.scopedDiscard(drainOnClose).pipe(
    Layer.provideMerge(HttpApiBuilder.serve().pipe(
      Layer.provide(HttpAppLive),
      HttpServer.withLogAddress
    )),
    Layer.provide(nodeServerLayer({ port: config.port, host: config.host }, () => server)),
    Layer.provide(Draining.Default)
  )
}))
