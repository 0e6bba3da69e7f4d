import { Either } from "effect"
import { MessageTypes } from "@platform/shared"
import { UpstreamRequestInvalid } from "./errors.js"

/** The 13 send types of SPEC §4.1, as the shared contract names them. */
export const SEND_MESSAGE_TYPES = MessageTypes
export type SendMessageType = typeof SEND_MESSAGE_TYPES[number]

export interface SendMedia {
  readonly link?: string | undefined
  readonly id?: string | undefined
  readonly caption?: string | undefined
  readonly filename?: string | undefined
  readonly voice?: boolean | undefined
}

export interface RuntimeTemplateComponent {
  readonly type: string
  readonly sub_type?: string | undefined
  readonly index?: number | string | undefined
  readonly parameters?: ReadonlyArray<unknown> | undefined
  readonly cards?: ReadonlyArray<{ readonly card_index: number; readonly components: ReadonlyArray<RuntimeTemplateComponent> }> | undefined
  readonly [key: string]: unknown
}

/**
 * The send request of SPEC §4.1 minus `channel_id`, structurally the same as the
 * shared request schema so that one can replace this type later.
 */
export interface SendMessageInput {
  readonly to: string
  readonly type: SendMessageType
  readonly text?: string | undefined
  readonly preview_url?: boolean | undefined
  readonly template_name?: string | undefined
  readonly language_code?: string | undefined
  readonly components?: ReadonlyArray<RuntimeTemplateComponent> | undefined
  readonly media?: SendMedia | undefined
  readonly interactive?: { readonly [key: string]: unknown } | undefined
  readonly location?: { readonly [key: string]: unknown } | undefined
  readonly contacts?: ReadonlyArray<unknown> | undefined
  readonly reaction?: { readonly message_id: string; readonly emoji?: string | undefined } | undefined
  readonly context?: { readonly message_id: string } | undefined
}

type Json = { readonly [key: string]: unknown }

/**
 * What a social channel (Instagram messaging through the Graph API) can carry,
 * from Meta's Instagram "Send API" documentation:
 *
 * | type        | social | how                                                        |
 * |-------------|--------|------------------------------------------------------------|
 * | text        | yes    | message.text (reply_to.mid for context; no link preview)   |
 * | image       | yes    | attachment type image                                      |
 * | video       | yes    | attachment type video                                      |
 * | audio       | yes    | attachment type audio (voice flag ignored)                 |
 * | document    | yes    | attachment type file (PDF); captions and filenames dropped |
 * | reaction    | yes    | sender_action react / unreact (Instagram has one: love)    |
 * | typing      | yes    | sender_action typing_on                                    |
 * | sticker     | no     | Instagram only sends its own like_heart sticker            |
 * | template    | no     | WhatsApp message templates do not exist on Instagram       |
 * | interactive | no     | WhatsApp buttons/lists have no Instagram equivalent body   |
 * | location    | no     | not sendable by a business on Instagram                    |
 * | contacts    | no     | not sendable on Instagram                                  |
 * | catalog     | no     | WhatsApp commerce only                                     |
 *
 * Media captions are dropped on social channels because Instagram attachments
 * carry none.
 */
export const SOCIAL_SUPPORT: Readonly<Record<SendMessageType, boolean>> = {
  text: true,
  image: true,
  video: true,
  audio: true,
  document: true,
  reaction: true,
  typing: true,
  sticker: false,
  template: false,
  interactive: false,
  location: false,
  contacts: false,
  catalog: false
}

export const socialSupports = (type: SendMessageType): boolean => SOCIAL_SUPPORT[type] === true

const invalid = (message: string) => Either.left(new UpstreamRequestInvalid({ code: "invalid_request", message }))

const mediaObject = (type: SendMessageType, media: SendMedia | undefined): Either.Either<Json, UpstreamRequestInvalid> => {
  if (!media) return invalid(`type ${type} needs a media object`)
  const hasLink = typeof media.link === "string" && media.link.length > 0
  const hasId = typeof media.id === "string" && media.id.length > 0
  if (hasLink === hasId) return invalid("media needs exactly one of link or id")
  const source: Json = hasLink ? { link: media.link } : { id: media.id }
  switch (type) {
    case "image":
    case "video":
      return Either.right(media.caption !== undefined ? { ...source, caption: media.caption } : source)
    case "document": {
      if (hasLink && !media.filename) return invalid("a document sent by link needs media.filename")
      return Either.right({
        ...source,
        ...(media.caption !== undefined ? { caption: media.caption } : {}),
        ...(media.filename !== undefined ? { filename: media.filename } : {})
      })
    }
    case "audio":
      return Either.right(media.voice === true ? { ...source, voice: true } : source)
    default:
      return Either.right(source)
  }
}

const templateComponent = (component: RuntimeTemplateComponent): Json => {
  const { cards, index, ...rest } = component
  return {
    ...rest,
    ...(index !== undefined ? { index: String(index) } : {}),
    ...(cards !== undefined
      ? {
        cards: cards.map((card) => ({
          card_index: card.card_index,
          components: card.components.map(templateComponent)
        }))
      }
      : {})
  }
}

/**
 * Maps a platform send request to the WhatsApp Cloud API body of
 * `POST /{phone_number_id}/messages`. Typing maps to WhatsApp's typing indicator,
 * which is keyed to the inbound message being answered (`context.message_id`).
 */
export const toChatPayload = (send: SendMessageInput): Either.Either<Json, UpstreamRequestInvalid> => {
  const base = { messaging_product: "whatsapp", recipient_type: "individual", to: send.to }
  const withContext = (body: Json): Json => send.context ? { ...body, context: { message_id: send.context.message_id } } : body
  switch (send.type) {
    case "text":
      if (send.text === undefined || send.text === "") return invalid("type text needs text")
      return Either.right(withContext({
        ...base,
        type: "text",
        text: send.preview_url !== undefined ? { preview_url: send.preview_url, body: send.text } : { body: send.text }
      }))
    case "template": {
      if (!send.template_name) return invalid("type template needs template_name")
      if (!send.language_code) return invalid("type template needs language_code")
      const components = send.components?.map(templateComponent)
      return Either.right({
        ...base,
        type: "template",
        template: {
          name: send.template_name,
          language: { code: send.language_code },
          ...(components && components.length > 0 ? { components } : {})
        }
      })
    }
    case "image":
    case "video":
    case "audio":
    case "document":
    case "sticker":
      return Either.map(mediaObject(send.type, send.media), (media) => withContext({ ...base, type: send.type, [send.type]: media }))
    case "interactive":
      if (!send.interactive) return invalid("type interactive needs interactive")
      return Either.right(withContext({ ...base, type: "interactive", interactive: send.interactive }))
    case "catalog":
      if (!send.interactive) return invalid("type catalog needs interactive")
      return Either.right(withContext({
        ...base,
        type: "interactive",
        interactive: { ...send.interactive, type: send.interactive["type"] ?? "catalog_message" }
      }))
    case "location":
      if (!send.location) return invalid("type location needs location")
      return Either.right(withContext({ ...base, type: "location", location: send.location }))
    case "contacts":
      if (!send.contacts || send.contacts.length === 0) return invalid("type contacts needs contacts")
      return Either.right(withContext({ ...base, type: "contacts", contacts: send.contacts }))
    case "reaction":
      if (!send.reaction?.message_id) return invalid("type reaction needs reaction.message_id")
      return Either.right({
        ...base,
        type: "reaction",
        reaction: { message_id: send.reaction.message_id, emoji: send.reaction.emoji ?? "" }
      })
    case "typing":
      if (!send.context?.message_id) {
        return invalid("WhatsApp shows typing against an inbound message: pass context.message_id of the message being answered")
      }
      return Either.right(chatTypingPayload(send.context.message_id))
  }
}

export const chatReadPayload = (messageId: string): Json => ({
  messaging_product: "whatsapp",
  status: "read",
  message_id: messageId
})

export const chatTypingPayload = (messageId: string): Json => ({
  messaging_product: "whatsapp",
  status: "read",
  message_id: messageId,
  typing_indicator: { type: "text" }
})

export const socialSenderAction = (recipient: string, action: "typing_on" | "typing_off" | "mark_seen"): Json => ({
  recipient: { id: recipient },
  sender_action: action
})

const SOCIAL_ATTACHMENT: Partial<Record<SendMessageType, string>> = {
  image: "image",
  video: "video",
  audio: "audio",
  document: "file"
}

/**
 * Maps a platform send request to the Instagram messaging body of
 * `POST /{ig_id}/messages`; types outside `SOCIAL_SUPPORT` are refused as chat_only.
 */
export const toSocialPayload = (send: SendMessageInput): Either.Either<Json, UpstreamRequestInvalid> => {
  if (!socialSupports(send.type)) {
    return Either.left(
      new UpstreamRequestInvalid({ code: "chat_only", message: `type ${send.type} is supported only on chat channels` })
    )
  }
  const recipient = { id: send.to }
  const replyTo = send.context ? { reply_to: { mid: send.context.message_id } } : {}
  switch (send.type) {
    case "text":
      if (send.text === undefined || send.text === "") return invalid("type text needs text")
      return Either.right({ recipient, ...replyTo, message: { text: send.text } })
    case "image":
    case "video":
    case "audio":
    case "document":
    {
      const media = send.media
      if (!media) return invalid(`type ${send.type} needs a media object`)
      if (Boolean(media.link) === Boolean(media.id)) return invalid("media needs exactly one of link or id")
      const payload = media.link ? { url: media.link } : { attachment_id: media.id }
      return Either.right({
        recipient,
        ...replyTo,
        message: { attachment: { type: SOCIAL_ATTACHMENT[send.type], payload } }
      })
    }
    case "reaction":
      if (!send.reaction?.message_id) return invalid("type reaction needs reaction.message_id")
      return Either.right(
        send.reaction.emoji
          ? { recipient, sender_action: "react", payload: { message_id: send.reaction.message_id, reaction: "love" } }
          : { recipient, sender_action: "unreact", payload: { message_id: send.reaction.message_id } }
      )
    case "typing":
      return Either.right(socialSenderAction(send.to, "typing_on"))
    default:
      return Either.left(
        new UpstreamRequestInvalid({ code: "chat_only", message: `type ${send.type} is supported only on chat channels` })
      )
  }
}
