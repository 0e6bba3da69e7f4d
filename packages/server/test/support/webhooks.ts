import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { AppConfig } from "../../src/config.js"
import { HttpAppLive } from "../../src/server.js"
import { DeliveryEngineLive } from "../../src/delivery/delivery-workers.js"
import { createKey, signup } from "../auth/support.js"
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

/** A signed-up developer (`name` prefixes the email) with an every-scope key and a chat channel. */
export const webhookDeveloper = (name: string) =>
  Effect.gen(function*() {
    const dev = yield* signup(name)
    const { key } = yield* createKey(dev)
    const sql = yield* SqlClient.SqlClient
    const [channel] = yield* sql<{ id: number }>`insert into platform_channels (developer_account_id, type, name, phone_number_id)
      values (${dev.accountId}, 'chat', 'main', ${`pn-${dev.accountId}-${Date.now()}`}) returning id`
    return { dev, accountId: dev.accountId, key, channelId: channel!.id }
  })
