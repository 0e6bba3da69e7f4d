import { Layer } from "effect"
import { AppConfig } from "./config.js"
import { DatabaseLive } from "./db/client.js"
import { HttpLive } from "./http/server.js"
import { LoggingLive } from "./logging.js"

/** The whole process: configuration, logging, database, HTTP (and, with later issues, workers). */
export const AppLive = HttpLive.pipe(
  Layer.provide(DatabaseLive),
  Layer.provide(LoggingLive),
  Layer.provide(AppConfig.Default)
)
