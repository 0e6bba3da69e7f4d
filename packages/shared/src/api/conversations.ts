import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { noQueryParams, queryParams } from "../common.js"
import { Conversation, ConversationList, ConversationListQuery, ConversationPatch } from "../conversation.js"
import { NotFound, ValidationFailed, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const ConversationPath = Schema.Struct({ conversation_id: PathId("The conversation's id") })

const base = "/platform/v1/conversations"

/** `/platform/v1/conversations` (SPEC §4.4, §5.3): reads need read:conversations, the PATCH manage:data; key only. */
export class ConversationsGroup extends HttpApiGroup.make("conversations")
  .add(
    HttpApiEndpoint.get("list", base)
      .setUrlParams(queryParams(ConversationListQuery))
      .addSuccess(ConversationList)
      .addError(wire(ValidationFailed))
      .annotate(RequiredScope, "read:conversations")
      .annotate(OpenApi.Summary, "List conversations, newest first")
      .annotate(
        OpenApi.Description,
        "Filters `channel_id`, `status`, `peer_id`; a value no conversation has gives an empty page. " +
          "Conversations of a deleted contact are not listed."
      )
  )
  .add(
    HttpApiEndpoint.get("get", `${base}/:conversation_id`)
      .setUrlParams(noQueryParams)
      .setPath(ConversationPath)
      .addSuccess(Conversation)
      .addError(wire(NotFound))
      .annotate(RequiredScope, "read:conversations")
      .annotate(OpenApi.Summary, "Get a conversation")
  )
  .add(
    HttpApiEndpoint.patch("update", `${base}/:conversation_id`)
      .setUrlParams(noQueryParams)
      .setPath(ConversationPath)
      .setPayload(ConversationPatch)
      .addSuccess(Conversation)
      .addError(wire(NotFound))
      .annotate(RequiredScope, "manage:data")
      .annotate(OpenApi.Summary, "End or re-activate a conversation")
      .annotate(
        OpenApi.Description,
        "`ended` sets ended_at and emits conversation.ended; `active` re-activates. Setting the current status is a no-op."
      )
  )
  .middleware(InputGuard)
  .middleware(ApiKeyAuth)
  .annotate(RequiredScope, "manage:data")
  .annotate(CookieAllowed, false)
  .annotate(OpenApi.Title, "Conversations")
  .annotate(OpenApi.Description, "Stored conversations: list, get, end or re-activate.")
{}
