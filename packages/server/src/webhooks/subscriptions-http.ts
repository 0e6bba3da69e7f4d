import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Subscriptions } from "./subscriptions.js"

export const SubscriptionsLive = HttpApiBuilder.group(PlatformApi, "subscriptions", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(account, (a) => subscriptions.create(a, payload)))
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => subscriptions.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => subscriptions.get(a, path.sub_id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(account, (a) => subscriptions.update(a, path.sub_id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(account, (a) => subscriptions.delete(a, path.sub_id)))
      .handle("resume", ({ path }) => Effect.flatMap(account, (a) => subscriptions.resume(a, path.sub_id)))
      .handle("rotateSecret", ({ path }) => Effect.flatMap(account, (a) => subscriptions.rotateSecret(a, path.sub_id)))
      .handle("test", ({ path, urlParams }) =>
        Effect.flatMap(account, (a) => subscriptions.test(a, path.sub_id, urlParams.event_type)))
  }))
