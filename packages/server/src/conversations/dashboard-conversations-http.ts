import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentSession, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Conversations } from "./conversations.js"

/** The console's read of the conversations: the v1 reads' own calls, for the session's account. */
export const DashboardConversationsLive = HttpApiBuilder.group(PlatformApi, "dashboardConversations", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    const account = Effect.map(CurrentSession, (s) => s.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => conversations.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => conversations.get(a, path.conversation_id)))
  }))
