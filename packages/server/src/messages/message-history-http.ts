import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { MessageHistory } from "./message-history.js"

export const MessageHistoryLive = HttpApiBuilder.group(PlatformApi, "messageHistory", (handlers) =>
  Effect.gen(function*() {
    const history = yield* MessageHistory
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => history.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => history.get(a, path.message_id)))
  }))
