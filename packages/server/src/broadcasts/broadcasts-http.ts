import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentPrincipal, PlatformApi } from "@platform/shared"
import { Effect } from "effect"
import { Broadcasts } from "./broadcasts.js"
import { parseIdempotencyKey } from "../messages/idempotency.js"
import { replayResponse } from "../messages/messages-http.js"

export const BroadcastsLive = HttpApiBuilder.group(PlatformApi, "broadcasts", (handlers) =>
  Effect.gen(function*() {
    const broadcasts = yield* Broadcasts
    const account = Effect.map(CurrentPrincipal, (p) => p.account_id)
    return handlers
      .handle("create", ({ headers, payload }) =>
        Effect.gen(function*() {
          const key = yield* parseIdempotencyKey(headers["idempotency-key"])
          const result = yield* broadcasts.create(yield* account, payload, key)
          return "_tag" in result ? replayResponse(result.response) : result
        }))
      .handle("list", ({ urlParams }) => Effect.flatMap(account, (a) => broadcasts.list(a, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(account, (a) => broadcasts.get(a, path.broadcast_id)))
      .handle("addRecipients", ({ path, payload }) =>
        Effect.flatMap(account, (a) => broadcasts.addRecipients(a, path.broadcast_id, payload)))
      .handle("listRecipients", ({ path, urlParams }) =>
        Effect.flatMap(account, (a) => broadcasts.listRecipients(a, path.broadcast_id, urlParams)))
      .handle("schedule", ({ path, payload }) => Effect.flatMap(account, (a) => broadcasts.schedule(a, path.broadcast_id, payload)))
      .handle("send", ({ headers, path }) =>
        Effect.gen(function*() {
          const key = yield* parseIdempotencyKey(headers["idempotency-key"])
          const result = yield* broadcasts.send(yield* account, path.broadcast_id, key)
          return "_tag" in result ? replayResponse(result.response) : result
        }))
      .handle("cancel", ({ path }) => Effect.flatMap(account, (a) => broadcasts.cancel(a, path.broadcast_id)))
  }))
