import { Effect, Layer } from "effect"
import { AppConfig } from "./config.js"
import { Secrets } from "./crypto/secrets.js"
import { DatabaseLive } from "./db/client.js"
import { DemoLive } from "./domain/demo.js"
import { DomainLive } from "./domain/layer.js"
import { HttpLive } from "./http/server.js"
import { LoggingLive } from "./logging.js"
import { ContactWipeSweepLive } from "./workers/contact-wipe-sweep.js"
import { BroadcastSendCycleLive } from "./workers/broadcast-send-cycle.js"
import { DeliveryWorkersLive } from "./workers/delivery-workers.js"
import { ExpiryPruneLive } from "./workers/expiry-prune.js"
import { ParkedStatusSweepLive } from "./workers/parked-status-sweep.js"
import { RawForwardSweepLive } from "./workers/raw-forward-sweep.js"
import { TemplateSweepLive } from "./workers/template-sweep.js"

/** The background workers; only where `ROLE` runs them. */
const WorkersLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => (config.runsWorkers ? Layer.mergeAll(RawForwardSweepLive, DeliveryWorkersLive, ParkedStatusSweepLive, ContactWipeSweepLive, BroadcastSendCycleLive, TemplateSweepLive, ExpiryPruneLive) : Layer.empty))
).pipe(Layer.provide(Secrets.Default))

/**
 * The first-run demo account (sandbox, not production), set up in the background once
 * the server answers. `DomainLive` is the same layer value HttpLive builds, so the
 * process keeps one instance of each domain service (layers are memoized by reference).
 */
const FirstRunLive = DemoLive.pipe(Layer.provide(DomainLive))

/** The whole process: configuration, logging, database, HTTP, workers and the first-run demo. */
export const AppLive = Layer.mergeAll(HttpLive, WorkersLive, FirstRunLive).pipe(
  Layer.provide(DatabaseLive),
  Layer.provide(LoggingLive),
  Layer.provide(AppConfig.Default)
)
