import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Accounts } from "./accounts.js"

export const DashboardTeamLive = HttpApiBuilder.group(PlatformApi, "dashboardTeam", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    return handlers
      .handle("list", () => Effect.flatMap(CurrentSession, (s) => accounts.team(s.account_id)))
      .handle("add", ({ payload }) => Effect.flatMap(CurrentSession, (s) => accounts.addMember(s.account_id, s.role, payload)))
      .handle("remove", ({ path }) =>
        Effect.flatMap(CurrentSession, (s) => accounts.removeMember(s.account_id, s, path.user_id)))
  }))
