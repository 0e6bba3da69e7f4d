import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conversation, ConversationPatch } from "../conversation.js"
import { NotFound, wire } from "../errors.js"
import { PathId } from "./path-id.js"
import { ApiKeyAuth, CookieAllowed, InputGuard, RequiredScope } from "./security.js"

export const ConversationPath = Schema.Struct({ conversation_id: PathId("The conversation's id") })

/** `/platform/v1/conversations` (SPEC §3.2, §5.3): for now the PATCH (manage:data, key only). */
export class ConversationsGroup extends HttpApiGroup.make("conversations")
  .add(
    HttpApiEndpoint.patch("update", "/platform/v1/conversations/:conversation_id")
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
  .annotate(OpenApi.Description, "End or re-activate a conversation.")
{}
