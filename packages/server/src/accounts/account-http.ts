import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Accounts } from "./accounts.js"

export const DashboardAccountLive = HttpApiBuilder.group(PlatformApi, "dashboardAccount", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    return handlers
      .handle("me", () => Effect.flatMap(CurrentSession, (s) => accounts.me(s.user_id, s.account_id).pipe(Effect.orDie)))
      .handle("get", () => Effect.flatMap(CurrentSession, (s) => accounts.getAccount(s.account_id)))
      .handle("update", ({ payload }) =>
        Effect.flatMap(CurrentSession, (s) => accounts.updateAccount(s.account_id, s.role, payload)))
      .handle("billing", () => Effect.flatMap(CurrentSession, (s) => accounts.billing(s.account_id)))
      .handle("changePlan", ({ payload }) =>
        Effect.flatMap(CurrentSession, (s) => accounts.changePlan(s.account_id, s.role, payload.plan)))
  }))
