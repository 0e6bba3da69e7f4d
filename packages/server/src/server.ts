import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServer from "@effect/platform/HttpServer"
import { PlatformApi } from "@platform/shared"
import { Effect, Layer, Option, Schedule } from "effect"
import { createServer, type Server } from "node:http"
import { ApiKeyAuthLive } from "./auth/api-key-auth.js"
import { DashboardAuthLive, SameOriginLive } from "./auth/dashboard-auth.js"
import { AppConfig } from "./config.js"
import { DeliveryDomainLive, DomainLive } from "./services.js"
import { InboundLive } from "./inbound/route.js"
import { SandboxRoutesLive } from "./upstream/live.js"
import { ApiDocsRoute } from "./http/api-docs.js"
import { BodyLimitMiddleware } from "./http/body-limit.js"
import { BroadcastsLive } from "./broadcasts/broadcasts-http.js"
import { ChannelsLive } from "./channels/channels-http.js"
import { ConsoleRoutes } from "./console/console-routes.js"
import { ContactsLive } from "./contacts/contacts-http.js"
import { DashboardContactsLive } from "./contacts/dashboard-contacts-http.js"
import { DashboardConversationsLive } from "./conversations/dashboard-conversations-http.js"
import { DashboardMessagesLive } from "./messages/dashboard-messages-http.js"
import { ConversationsLive } from "./conversations/conversations-http.js"
import { DashboardAccountLive } from "./accounts/account-http.js"
import { DashboardApiKeysLive } from "./accounts/api-keys-http.js"
import { DashboardChannelsLive } from "./channels/dashboard-channels-http.js"
import { DashboardSessionLive } from "./accounts/sessions-http.js"
import { DashboardTeamLive } from "./accounts/team-http.js"
import { Draining } from "./http/draining.js"
import { Shutdown } from "./jobs/shutdown.js"
import { EventsStreamLive } from "./events/events-stream-http.js"
import { nodeServerLayer } from "./http/node-server.js"
import { HealthLive } from "./http/health.js"
import { Readiness } from "./http/readiness.js"
import { InputGuardLive } from "./http/input-guard.js"
import { MediaDownloadRoute, MediaLive } from "./media/media-http.js"
import { MessageHistoryLive } from "./messages/message-history-http.js"
import { MessagesLive } from "./messages/messages-http.js"
import { TemplatesLive } from "./templates/templates-http.js"
import { RequestContextMiddleware, requestsInFlight } from "./http/request-context.js"
import { ValidationMiddleware } from "./http/validation.js"
import { workerOnlyRoute } from "./http/worker-routes.js"
import { DeliveriesLive } from "./webhooks/deliveries-http.js"
import { MetricsRoute } from "./telemetry/metrics-endpoint.js"
import { MetricsScrape } from "./telemetry/scrape.js"
import { SubscriptionsLive } from "./webhooks/subscriptions-http.js"

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
    DashboardChannelsLive,
    DashboardMessagesLive,
    DashboardConversationsLive,
    DashboardContactsLive
  ]),
  Layer.provide([ApiKeyAuthLive, DashboardAuthLive, SameOriginLive, InputGuardLive])
)

/** The routes and middleware of the HTTP surface, without a listener. */
export const HttpAppLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/platform/v1/openapi.json" }),
  ApiDocsRoute,
  ValidationMiddleware,
  BodyLimitMiddleware,
  RequestContextMiddleware,
  InboundLive,
  MediaDownloadRoute,
  SandboxRoutesLive,
  MetricsRoute,
  ConsoleRoutes
).pipe(
  Layer.provide(MetricsScrape.Default),
  Layer.provideMerge(ApiLive),
  Layer.provideMerge(Draining.Default),
  Layer.provideMerge(Readiness.Default),
  Layer.provideMerge(DeliveryDomainLive),
  Layer.provideMerge(DomainLive)
)

// On shutdown: stop accepting connections, end the event streams, let in-flight
// requests finish until the shutdown's deadline (SHUTDOWN_GRACE_MS), then close what
// is left. This finalizer runs before the server's own, which would otherwise
// interrupt requests mid-way.
const drain = (server: Server, draining: Draining, shutdown: Shutdown) =>
  Effect.gen(function*() {
    yield* shutdown.begin
    yield* draining.begin
    server.close()
    const finished = yield* shutdown.untilDeadline(
      Effect.repeat(Effect.sync(requestsInFlight), { until: (n) => n === 0, schedule: Schedule.spaced("25 millis") })
    )
    const cut = requestsInFlight()
    server.closeAllConnections()
    yield* Option.isSome(finished)
      ? Effect.logInfo("http server drained")
      : Effect.logWarning(`http server drained: ${cut} requests still running at the deadline had their connections closed`)
  })

/**
 * Serves the HTTP surface on HOST:PORT, logging the address once listening; drains on
 * shutdown. A `ROLE=worker` process answers only its probes and /metrics there (see
 * `workerOnlyRoute`).
 */
export const HttpLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const server = createServer()
  // Built after `serve`, so the app answers by now.
  const drainOnClose = Effect.gen(function*() {
    const draining = yield* Draining
    const shutdown = yield* Shutdown
    yield* (yield* Readiness).served
    yield* Effect.addFinalizer(() => drain(server, draining, shutdown))
  })
  return Layer.scopedDiscard(drainOnClose).pipe(
    Layer.provideMerge(HttpApiBuilder.serve().pipe(
      Layer.provide(HttpAppLive),
      HttpServer.withLogAddress
    )),
    Layer.provide(nodeServerLayer({ port: config.port, host: config.host }, () => server, config.runsApi ? [] : [workerOnlyRoute])),
    Layer.provide(Draining.Default),
    Layer.provide(Readiness.Default),
    Layer.provide(Shutdown.Default)
  )
}))
