import { Effect, Layer } from "effect"
import { AppConfig } from "./config.js"
import { DatabaseLive } from "./db/client.js"
import { DemoLive } from "./demo.js"
import { DomainLive, KernelLive } from "./services.js"
import { HttpLive } from "./server.js"
import { Readiness } from "./http/readiness.js"
import { StopSignalsLive } from "./stop-signals.js"
import { Shutdown } from "./jobs/shutdown.js"
import { LoggingLive } from "./logging.js"
import { ContactWipeSweepLive } from "./contacts/contact-wipe-sweep.js"
import { BroadcastSendCycleLive } from "./broadcasts/broadcast-send-cycle.js"
import { DeliveryWorkersLive } from "./delivery/delivery-workers.js"
import { ExpiryPruneLive } from "./accounts/expiry-prune.js"
import { ParkedStatusSweepLive } from "./inbound/parked-status-sweep.js"
import { RawForwardSweepLive } from "./delivery/raw-forward-sweep.js"
import { TemplateSweepLive } from "./templates/template-sweep.js"
import { MetricsListenerLive } from "./telemetry/metrics-endpoint.js"
import { MetricsScrape } from "./telemetry/scrape.js"
import { TracingLive } from "./telemetry/tracing.js"

/** The background workers; only where `ROLE` runs them. */
export const WorkersLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => (config.runsWorkers ? Layer.mergeAll(RawForwardSweepLive, DeliveryWorkersLive, ParkedStatusSweepLive, ContactWipeSweepLive, BroadcastSendCycleLive, TemplateSweepLive, ExpiryPruneLive) : Layer.empty))
).pipe(Layer.provide(KernelLive))

/**
 * The first-run demo account (sandbox, not production). It holds readiness, so it is
 * built before the HTTP layer (provided to it): `/readyz` answers 200 only once the demo
 * exists. `DomainLive` and `Readiness.Default` are the same layer values HttpLive builds,
 * so the process keeps one instance of each (layers are memoized by reference).
 */
const FirstRunLive = DemoLive.pipe(Layer.provide(DomainLive), Layer.provide(Readiness.Default))

/** /metrics on a port of its own, in every role (see MetricsListenerLive). */
const MetricsLive = MetricsListenerLive.pipe(Layer.provide(MetricsScrape.Default))

/**
 * The whole process: configuration, logging and tracing, database, HTTP, workers, metrics
 * and the first-run demo. Closing it (SIGTERM, SIGINT) is a stop: `Shutdown.beginOnClose`,
 * built over everything else, begins it before HTTP and the workers close, so they drain
 * within one grace period (jobs/shutdown.ts).
 */
export const AppLive = Shutdown.beginOnClose.pipe(
  Layer.provide(Layer.mergeAll(HttpLive.pipe(Layer.provide(FirstRunLive)), WorkersLive, MetricsLive)),
  Layer.provide(Shutdown.Default),
  Layer.provide(StopSignalsLive),
  Layer.provide(DatabaseLive),
  Layer.provide(Layer.merge(LoggingLive, TracingLive)),
  Layer.provide(AppConfig.Default)
)
