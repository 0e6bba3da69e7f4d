import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { ApiKeys } from "../auth/api-keys.js"

export const DashboardApiKeysLive = HttpApiBuilder.group(PlatformApi, "dashboardApiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    return handlers
      .handle("list", () => Effect.flatMap(CurrentSession, (s) => keys.list(s.account_id)))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentSession, (s) => keys.create(s.account_id, payload)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(CurrentSession, (s) => keys.update(s.account_id, path.id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentSession, (s) => keys.remove(s.account_id, path.id)))
  }))
