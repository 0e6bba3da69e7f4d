import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Deliveries } from "./deliveries.js"

export const DeliveriesLive = HttpApiBuilder.group(PlatformApi, "deliveries", (handlers) =>
  Effect.gen(function*() {
    const deliveries = yield* Deliveries
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => deliveries.list(a, urlParams)))
      .handle("get", ({ path, urlParams }) =>
        Effect.flatMap(account, (a) => deliveries.get(a, path.delivery_id, urlParams.include === "full_envelope")))
      .handle("redeliver", ({ path }) => Effect.flatMap(account, (a) => deliveries.redeliver(a, path.delivery_id)))
  }))
