import type { CursorPage, PagePromise } from "../core/pagination.js"
import type { RequestOptions } from "../core/request.js"
import { APIResource, cursorPage, knownParams, listPages, seg } from "../resource.js"
import type {
  MarkReadParams,
  MarkReadResult,
  Message,
  MessageListParams,
  MessageType,
  SendMessageParams,
  SendParams,
  SendResult
} from "../types.js"

const base = "/platform/v1/messages"
const LIST_PARAMS = [
  "limit", "after", "before", "channel_id", "conversation_id", "contact_id", "peer_id", "direction", "type", "status", "since", "until"
] as const satisfies ReadonlyArray<keyof MessageListParams>

/** Sends messages of the 13 types and read receipts, and reads the stored history (`/platform/v1/messages`). */
export class Messages extends APIResource {
  /** Lists stored messages, newest first (read:messages): `await` for one page, `for await` for all. */
  list(params: MessageListParams = {}, options?: RequestOptions): PagePromise<Message, CursorPage<Message>> {
    return listPages(this._client, base, knownParams("messages.list", params, LIST_PARAMS), options, cursorPage)
  }

  /** Retrieves a stored message by its id (the platform's id, not the upstream `meta_message_id`). */
  retrieve(messageId: number, options?: RequestOptions): Promise<Message> {
    return this._client.request({ method: "GET", path: `${base}/${seg(messageId)}` }, options)
  }

  /** Sends a message; always carries an Idempotency-Key (generated unless given), so retries never send twice. */
  send(body: SendMessageParams, options?: RequestOptions): Promise<SendResult> {
    return this._client.request({ method: "POST", path: "/platform/v1/messages", body, autoIdempotencyKey: true }, options)
  }

  /** Marks an inbound message (chat) or a sender's conversation (social) as read. */
  markRead(body: MarkReadParams, options?: RequestOptions): Promise<MarkReadResult> {
    return this._client.request({ method: "POST", path: "/platform/v1/messages/mark-read", body, idempotent: true }, options)
  }

  #typed<T extends MessageType>(type: T) {
    return (params: SendParams<T>, options?: RequestOptions): Promise<SendResult> =>
      this.send({ ...params, type } as unknown as SendMessageParams, options)
  }

  /** Sends a text message. */
  readonly sendText = this.#typed("text")
  /** Sends an approved template with its runtime components (chat channels only). */
  readonly sendTemplate = this.#typed("template")
  /** Sends an image by `link` or uploaded media `id`, with an optional caption. */
  readonly sendImage = this.#typed("image")
  /** Sends a video by `link` or `id`, with an optional caption. */
  readonly sendVideo = this.#typed("video")
  /** Sends audio by `link` or `id`; `voice: true` makes it a voice note on chat channels. */
  readonly sendAudio = this.#typed("audio")
  /** Sends a document by `link` or `id`, with optional caption and filename. */
  readonly sendDocument = this.#typed("document")
  /** Sends a sticker by `link` or `id`. */
  readonly sendSticker = this.#typed("sticker")
  /** Sends an interactive message (buttons, lists); the `interactive` object is passed through. */
  readonly sendInteractive = this.#typed("interactive")
  /** Sends a location pin. */
  readonly sendLocation = this.#typed("location")
  /** Sends one or more contact cards. */
  readonly sendContacts = this.#typed("contacts")
  /** Reacts to a message with an emoji (an empty emoji removes the reaction). */
  readonly sendReaction = this.#typed("reaction")
  /** Shows a typing indicator. */
  readonly sendTyping = this.#typed("typing")
  /** Sends a catalog message; the `interactive` object is passed through. */
  readonly sendCatalog = this.#typed("catalog")
}
