import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { noQueryParams, optional } from "../common.js"
import {
  ChannelUnusable,
  ChatOnly,
  IdempotencyKeyInFlight,
  IdempotencyKeyReused,
  NotFound,
  SendOutcomePending,
  SendUpstreamError,
  TemplateQuotaExceeded,
  ValidationFailed,
  wire
} from "../errors.js"
import { MarkRead, MarkReadResult, SendMessage, SendResult } from "../message.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

/** Optional `Idempotency-Key` (DESIGN §5); its length (1..255) is checked by the server so the 422 names the header. */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": optional(Schema.String.annotations({
    description: "Up to 255 characters. The first response is kept 24 hours per account and key: a retry with the same body " +
      "replays it (header `Idempotent-Replayed: true`, no second send); the same key with another body is 422 " +
      "idempotency_key_reused; a retry while the first is still running is 409."
  }))
})

/** `/platform/v1/messages`: sends and read receipts (send:messages, key only). */
export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/platform/v1/messages")
      .setUrlParams(noQueryParams)
      .setPayload(SendMessage)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(SendResult)
      .addError(wire(ChatOnly))
      .addError(wire(NotFound))
      .addError(wire(ChannelUnusable))
      .addError(wire(ValidationFailed))
      .addError(wire(IdempotencyKeyReused))
      .addError(wire(IdempotencyKeyInFlight))
      .addError(wire(TemplateQuotaExceeded))
      .addError(wire(SendUpstreamError))
      .addError(wire(SendOutcomePending))
      .annotate(OpenApi.Summary, "Send a message of one of the 13 types")
      .annotate(
        OpenApi.Description,
        "`message_id` is the upstream id (empty for typing, which creates no message). Types a social channel cannot " +
          "carry are 400 chat_only before any upstream call. Template sends consume the plan's monthly template quota " +
          "(429 `template quota exceeded: ...`). With `Idempotency-Key` the first response is kept 24 h and replayed " +
          "with `Idempotent-Replayed: true`; the same key with another body is 422 idempotency_key_reused, a retry " +
          "while the first is running 409. An upstream failure is 502 with the upstream error envelope. When the " +
          "database fails after the upstream accepted the message, 503 outcome_pending (with `Retry-After` and the " +
          "upstream `meta_message_id`): the message has gone out and is recorded when the database returns; a retry " +
          "with the same Idempotency-Key then replays the recorded 200, so never resend it without the key."
      )
  )
  .add(
    HttpApiEndpoint.post("markRead", "/platform/v1/messages/mark-read")
      .setUrlParams(noQueryParams)
      .setPayload(MarkRead)
      .addSuccess(MarkReadResult)
      .addError(wire(NotFound))
      .addError(wire(ChatOnly))
      .addError(wire(ValidationFailed))
      .addError(wire(ChannelUnusable))
      .addError(wire(SendUpstreamError))
      .annotate(OpenApi.Summary, "Mark an inbound message (chat) or a participant's conversation (social) read")
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "send:messages")
  .annotate(CookieAllowed, false)
  .annotate(OpenApi.Title, "Messages")
  .annotate(OpenApi.Description, "Send any of the 13 message types and mark inbound messages read. Events follow on webhooks and the event stream.")
{}
