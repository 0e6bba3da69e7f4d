import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { MessageHistory } from "./message-history.js"

/** The console's read of the history: the v1 history's own calls, for the session's account. */
export const DashboardMessagesLive = HttpApiBuilder.group(PlatformApi, "dashboardMessages", (handlers) =>
  Effect.gen(function*() {
    const history = yield* MessageHistory
    const account = Effect.map(CurrentSession, (s) => s.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => history.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => history.get(a, path.message_id)))
  }))
