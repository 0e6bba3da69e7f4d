import { HttpApiBuilder } from "@effect/platform"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Conversations } from "../domain/conversations.js"

export const ConversationsLive = HttpApiBuilder.group(PlatformApi, "conversations", (handlers) =>
  Effect.gen(function*() {
    const conversations = yield* Conversations
    return handlers.handle("update", ({ path, payload }) =>
      Effect.flatMap(CurrentPrincipal, (p) => conversations.setStatus(p.account_id, path.conversation_id, payload.status)))
  }))
