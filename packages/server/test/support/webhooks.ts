import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { HttpAppLive } from "../../src/http/server.js"
import { DeliveryEngineLive } from "../../src/workers/delivery-workers.js"
import { EngineDatabase } from "./delivery.js"
import { TestListener } from "./server.js"

/**
 * The real HTTP surface on 127.0.0.1 plus the delivery engine's services (no
 * workers: tests drive fan-out and dispatch, so schedules run on the TestClock).
 */
export const WebhooksTestServer = Layer.mergeAll(
  HttpApiBuilder.serve().pipe(Layer.provideMerge(HttpAppLive)),
  DeliveryEngineLive
).pipe(
  Layer.provideMerge(TestListener),
  Layer.provideMerge(EngineDatabase),
  Layer.provideMerge(AppConfig.layerWith({ LOG_LEVEL: "warning" }))
)
