import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Conversations } from "./conversations.js"

export const ConversationsLive = HttpApiBuilder.group(PlatformApi, "conversations", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => conversations.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => conversations.get(a, path.conversation_id)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(account, (a) => conversations.setStatus(a, path.conversation_id, payload.status)))
  }))
