import type { CursorPage, PagePromise } from "../core/pagination.js"
import type { RequestOptions } from "../core/request.js"
import { APIResource, cursorPage, knownParams, listPages, seg } from "../resource.js"
import type { Conversation, ConversationListParams, ConversationUpdateParams } from "../types.js"

const base = "/platform/v1/conversations"
const LIST_PARAMS = ["limit", "after", "before", "channel_id", "status", "peer_id"] as const satisfies ReadonlyArray<
  keyof ConversationListParams
>

/** Conversations (`/platform/v1/conversations`): list and retrieve (read:conversations), end or re-activate (manage:data). */
export class Conversations extends APIResource {
  /** Lists conversations, newest first, filtered by channel_id, status or peer_id: `await` for one page, `for await` for all. */
  list(params: ConversationListParams = {}, options?: RequestOptions): PagePromise<Conversation, CursorPage<Conversation>> {
    return listPages(this._client, base, knownParams("conversations.list", params, LIST_PARAMS), options, cursorPage)
  }

  /** Retrieves a conversation by id. */
  retrieve(conversationId: number, options?: RequestOptions): Promise<Conversation> {
    return this._client.request({ method: "GET", path: `${base}/${seg(conversationId)}` }, options)
  }

  /** Sets a conversation's status: `ended` sets ended_at and emits conversation.ended, `active` re-activates it (needs manage:data). */
  update(conversationId: number, body: ConversationUpdateParams, options?: RequestOptions): Promise<Conversation> {
    return this._client.request(
      { method: "PATCH", path: `${base}/${seg(conversationId)}`, body, idempotent: true },
      options
    )
  }
}
