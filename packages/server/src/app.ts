import { Effect, Layer } from "effect"
import { AppConfig } from "./config.js"
import { Secrets } from "./crypto/secrets.js"
import { DatabaseLive } from "./db/client.js"
import { HttpLive } from "./http/server.js"
import { LoggingLive } from "./logging.js"
import { DeliveryWorkersLive } from "./workers/delivery-workers.js"
import { RawForwardSweepLive } from "./workers/raw-forward-sweep.js"

/** The background workers; only where `ROLE` runs them. */
const WorkersLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => (config.runsWorkers ? Layer.mergeAll(RawForwardSweepLive, DeliveryWorkersLive) : Layer.empty))
).pipe(Layer.provide(Secrets.Default))

/** The whole process: configuration, logging, database, HTTP and workers. */
export const AppLive = Layer.mergeAll(HttpLive, WorkersLive).pipe(
  Layer.provide(DatabaseLive),
  Layer.provide(LoggingLive),
  Layer.provide(AppConfig.Default)
)
