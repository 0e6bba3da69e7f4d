import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { noQueryParams, queryParams } from "../common.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { Message, MessageList, MessageListQuery } from "../message.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const MessagePath = Schema.Struct({ message_id: PathId("The stored message's id (not the upstream id)") })

const base = "/platform/v1/messages"

/**
 * The stored history under `/platform/v1/messages` (read:messages, key only). A group of
 * its own beside `messages` (sends, send:messages): same path, another scope.
 */
export class MessageHistoryGroup extends HttpApiGroup.make("messageHistory")
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(MessageListQuery))
      .addSuccess(MessageList)
      .addError(wire(ValidationFailed))
      .annotate(OpenApi.Summary, "List stored messages, newest first")
      .annotate(
        OpenApi.Description,
        "Filters `channel_id, conversation_id, contact_id, peer_id, direction, type, status, since` (inclusive) and " +
          "`until` (exclusive); a value no message has gives an empty page. Messages of a deleted contact are not listed."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:message_id`)
      .setUrlParams(noQueryParams)
      .setPath(MessagePath)
      .addSuccess(Message)
      .addError(wire(NotFound))
      .annotate(OpenApi.Summary, "Get a stored message")
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "read:messages")
  .annotate(CookieAllowed, false)
  .annotate(OpenApi.Title, "Message history")
  .annotate(OpenApi.Description, "Messages sent and received, as stored.")
{}
