import type { RequestOptions } from "../core/request.js"
import { APIResource, seg } from "../resource.js"
import type { Conversation, ConversationUpdateParams } from "../types.js"

/** Conversations (`/platform/v1/conversations`): for now, ending and re-activating one. */
export class Conversations extends APIResource {
  /** Sets a conversation's status: `ended` sets ended_at and emits conversation.ended, `active` re-activates it (needs manage:data). */
  update(conversationId: number, body: ConversationUpdateParams, options?: RequestOptions): Promise<Conversation> {
    return this._client.request(
      { method: "PATCH", path: `/platform/v1/conversations/${seg(conversationId)}`, body, idempotent: true },
      options
    )
  }
}
