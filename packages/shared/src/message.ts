import { Schema } from "effect"
import { Id, type Issue, JsonObject, NonBlankString, NonEmptyString, Timestamp, exactlyOneOfLinkOrId, maxChars, optional, requestBody } from "./common.js"
import { CAROUSEL_MAX_CARDS, CAROUSEL_MIN_CARDS, MARK_READ_MESSAGE_ID_MAX } from "./limits.js"
import { ListQueryFields, Page } from "./pagination.js"
import { IntegerParam } from "./param.js"

export const MessageTypes = [
  "text",
  "template",
  "image",
  "video",
  "audio",
  "document",
  "sticker",
  "interactive",
  "location",
  "contacts",
  "reaction",
  "typing",
  "catalog"
] as const
export const MessageType = Schema.Literal(...MessageTypes).annotations({ identifier: "MessageType" })
export type MessageType = typeof MessageType.Type

export const MessageDirection = Schema.Literal("inbound", "outbound")
export type MessageDirection = typeof MessageDirection.Type

export const MessageSource = Schema.Literal("contact", "api", "app_echo")
export type MessageSource = typeof MessageSource.Type

// Runtime template parameters (Meta Cloud API names) ---------------------------------

/**
 * A media `link`: an absolute http or https URL, which the upstream fetches (it refuses any other
 * kind, so a typo would be accepted here and fail later as a message.failed).
 */
const MediaLink = Schema.String.pipe(
  Schema.filter((s) => {
    if (/[\u0000-\u0020\u007f]/.test(s)) return "must be an http or https URL (without spaces or control characters)"
    try {
      const url = new URL(s)
      return url.protocol === "https:" || url.protocol === "http:" || "must be an http or https URL"
    } catch {
      return "must be an http or https URL"
    }
  })
)

/** `{link}` or `{id}` reference to media, exactly one. */
const mediaRef = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct({ link: optional(MediaLink), id: optional(NonBlankString), ...fields }).pipe(
    Schema.filter(exactlyOneOfLinkOrId)
  )

/** Degrees, finite and in range: JSON's 1e400 parses to Infinity, which would reach the upstream as null. */
const degrees = (max: number) =>
  Schema.Number.pipe(Schema.between(-max, max, { message: () => `must be a number from -${max} to ${max}` }))

export const LocationObject = Schema.Struct({
  latitude: degrees(90),
  longitude: degrees(180),
  name: optional(Schema.String),
  address: optional(Schema.String)
})

/** text: the upstream refuses an empty parameter ("Parameter of type text is missing text value"). */
export const TextParameter = Schema.Struct({
  type: Schema.Literal("text"),
  text: NonEmptyString,
  parameter_name: optional(NonEmptyString)
})
export const CurrencyParameter = Schema.Struct({
  type: Schema.Literal("currency"),
  currency: Schema.Struct({ fallback_value: Schema.String, code: NonEmptyString, amount_1000: Schema.Int })
})
export const DateTimeParameter = Schema.Struct({
  type: Schema.Literal("date_time"),
  date_time: Schema.Struct({ fallback_value: Schema.String })
})
export const ImageParameter = Schema.Struct({ type: Schema.Literal("image"), image: mediaRef({}) })
export const VideoParameter = Schema.Struct({ type: Schema.Literal("video"), video: mediaRef({}) })
export const DocumentParameter = Schema.Struct({
  type: Schema.Literal("document"),
  document: mediaRef({ filename: optional(Schema.String) })
})
export const LocationParameter = Schema.Struct({ type: Schema.Literal("location"), location: LocationObject })
export const PayloadParameter = Schema.Struct({ type: Schema.Literal("payload"), payload: Schema.String })
export const CouponCodeParameter = Schema.Struct({ type: Schema.Literal("coupon_code"), coupon_code: Schema.String })

export const HeaderParameter = Schema.Union(
  TextParameter,
  CurrencyParameter,
  DateTimeParameter,
  ImageParameter,
  VideoParameter,
  DocumentParameter,
  LocationParameter
)
export const BodyParameter = Schema.Union(TextParameter, CurrencyParameter, DateTimeParameter)

// Runtime template components --------------------------------------------------------

export const RuntimeHeaderComponent = Schema.Struct({
  type: Schema.Literal("header"),
  parameters: Schema.Array(HeaderParameter).annotations({ message: () => "must be a list of header parameters" })
})

/** Body parameters: all carry parameter_name (NAMED template) or none does. */
export const RuntimeBodyComponent = Schema.Struct({
  type: Schema.Literal("body"),
  parameters: Schema.Array(BodyParameter).annotations({ message: () => "must be a list of body parameters" }).pipe(
    Schema.filter((ps): Issue | undefined => {
      const named = ps.filter((p) => p.type === "text" && p.parameter_name !== undefined).length
      if (named === 0 || named === ps.length) return undefined
      const at = ps.findIndex((p) => !(p.type === "text" && p.parameter_name !== undefined))
      return {
        path: [at, "parameter_name"],
        message: "either every body parameter is a text parameter with parameter_name (NAMED) or none has one"
      }
    })
  )
})

/** Button index: an integer is accepted and decoded to its string form. */
export const ButtonIndex = Schema.transform(
  Schema.Union(Schema.String, Schema.Number).pipe(
    Schema.filter(
      (i) => (typeof i === "string" ? /^\d+$/.test(i) : Number.isSafeInteger(i) && i >= 0) ||
        "must be a non-negative integer or its decimal string form"
    )
  ),
  Schema.String,
  { strict: true, decode: (i) => String(i), encode: (s) => s }
)

/** The parameter kind each button sub_type takes (SPEC §4.1: exactly one). */
const BUTTON_PARAMETER_KIND = { quick_reply: "payload", url: "text", copy_code: "coupon_code" } as const

export const ButtonSubType = Schema.Literal("quick_reply", "url", "copy_code")

/**
 * One struct for every button, keyed on `type` alone: with one union member per
 * sub_type, the union also discriminated on `sub_type`, so a broken header or body
 * component was additionally reported as "sub_type is missing", and a url button as
 * a failed quick_reply one. The sub_type/parameter pairing is checked after decoding.
 */
export const RuntimeButtonComponent = Schema.Struct({
  type: Schema.Literal("button"),
  sub_type: ButtonSubType,
  index: ButtonIndex,
  parameters: Schema.Array(Schema.Union(PayloadParameter, TextParameter, CouponCodeParameter))
}).pipe(
  Schema.filter((c): Issue | undefined => {
    const kind = BUTTON_PARAMETER_KIND[c.sub_type]
    if (c.parameters.length !== 1) {
      return { path: ["parameters"], message: `a ${c.sub_type} button takes exactly one ${kind} parameter` }
    }
    const given = c.parameters[0]!.type
    return given === kind
      ? undefined
      : { path: ["parameters", 0, "type"], message: `a ${c.sub_type} button takes a ${kind} parameter, not ${given}` }
  })
)

/**
 * One header, one body and one carousel at most, and one component per button index
 * (SPEC §4.1): the upstream refuses a second one rather than choosing.
 */
const distinctComponents = (
  components: ReadonlyArray<{ readonly type: string; readonly index?: string }>
): Issue | undefined => {
  const seen = new Set<string>()
  for (const [i, c] of components.entries()) {
    const key = c.type === "button" ? `button ${Number(c.index)}` : c.type
    if (seen.has(key)) {
      return c.type === "button"
        ? { path: [i, "index"], message: `button index ${Number(c.index)} is given twice: one component per button` }
        : { path: [i, "type"], message: `a ${c.type} component is given twice: at most one is allowed` }
    }
    seen.add(key)
  }
  return undefined
}

export const RuntimeCardComponent = Schema.Union(
  RuntimeHeaderComponent,
  RuntimeBodyComponent,
  RuntimeButtonComponent
)

export const RuntimeCarouselComponent = Schema.Struct({
  type: Schema.Literal("carousel"),
  cards: Schema.Array(
    Schema.Struct({
      card_index: Schema.NonNegativeInt,
      components: Schema.Array(RuntimeCardComponent).pipe(Schema.filter(distinctComponents))
    })
  ).pipe(
    Schema.minItems(CAROUSEL_MIN_CARDS, { message: () => `a carousel has ${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS} cards` }),
    Schema.maxItems(CAROUSEL_MAX_CARDS, { message: () => `a carousel has ${CAROUSEL_MIN_CARDS} to ${CAROUSEL_MAX_CARDS} cards` }),
    Schema.filter((cards): Issue | undefined => {
      const at = cards.findIndex((c, i) => cards.findIndex((d) => d.card_index === c.card_index) < i)
      return at === -1
        ? undefined
        : { path: [at, "card_index"], message: `card_index ${cards[at]!.card_index} is given to more than one card` }
    })
  )
})

/** Component of a template send (SPEC §4.1 "Runtime template components"). */
export const RuntimeComponent = Schema.Union(
  RuntimeHeaderComponent,
  RuntimeBodyComponent,
  RuntimeButtonComponent,
  RuntimeCarouselComponent
).annotations({ identifier: "RuntimeComponent" })
export type RuntimeComponent = typeof RuntimeComponent.Type

/**
 * The components of a template send: at most one header, body and carousel, one per
 * button index. One definition for POST /messages and broadcasts (draft and recipients).
 */
export const RuntimeComponents = Schema.Array(RuntimeComponent).annotations({
  message: () => "must be a list of components"
}).pipe(Schema.filter(distinctComponents))

/** The template a send names; the upstream has no template named by whitespace alone. */
export const TemplateRef = { template_name: NonBlankString, language_code: NonBlankString }

/** A recipient (`to`) of a send: not empty and not only whitespace. */
export const Recipient = NonBlankString

// SendMessage -------------------------------------------------------------------------

/**
 * Media object as sent: exactly one of link | id. caption applies to image, video and
 * document, filename to document, voice to audio; on other types they are dropped.
 */
export const MediaObject = Schema.Struct({
  link: optional(MediaLink),
  id: optional(NonBlankString),
  caption: optional(Schema.String),
  filename: optional(Schema.String),
  voice: optional(Schema.Boolean)
}).pipe(Schema.filter(exactlyOneOfLinkOrId), Schema.annotations({ identifier: "MediaObject" }))
export type MediaObject = typeof MediaObject.Type

type MediaKey = "caption" | "filename" | "voice"

/** Decodes a media object to the fields that apply to one message type. */
const mediaFor = <K extends MediaKey>(...keys: ReadonlyArray<K>) => {
  const fields = { caption: Schema.String, filename: Schema.String, voice: Schema.Boolean }
  const picked = Object.fromEntries(keys.map((k) => [k, optional(fields[k])])) as {
    [P in K]: Schema.optionalWith<(typeof fields)[P], { exact: true }>
  }
  return Schema.transform(
    MediaObject,
    Schema.Struct({ link: optional(Schema.String), id: optional(Schema.String), ...picked }),
    {
      strict: false,
      decode: (m) => {
        const out: Record<string, unknown> = {}
        for (const k of ["link", "id", ...keys] as const) if (m[k] !== undefined) out[k] = m[k]
        return out
      },
      encode: (m) => m
    }
  )
}

const ContactsArray = Schema.Array(JsonObject).pipe(
  Schema.minItems(1, { message: () => "must hold at least one contact" })
)

export const ReactionObject = Schema.Struct({ message_id: NonBlankString, emoji: Schema.String })
export const MessageContext = Schema.Struct({ message_id: NonBlankString })

/** Fields every send accepts; fields of other types are ignored (SPEC §4.1). */
const sendBase = {
  channel_id: Id,
  to: Recipient,
  text: optional(Schema.String),
  preview_url: optional(Schema.Boolean),
  template_name: optional(NonEmptyString),
  language_code: optional(NonEmptyString),
  components: optional(RuntimeComponents),
  media: optional(MediaObject),
  interactive: optional(JsonObject),
  location: optional(LocationObject),
  contacts: optional(ContactsArray),
  reaction: optional(ReactionObject),
  context: optional(MessageContext)
}

const send = <T extends MessageType, F extends Schema.Struct.Fields>(type: T, fields: F) =>
  Schema.Struct({ ...sendBase, type: Schema.Literal(type), ...fields })

const visualMedia = mediaFor("caption")

export const SendText = send("text", { text: NonBlankString })
export const SendTemplate = send("template", TemplateRef)
export const SendImage = send("image", { media: visualMedia })
export const SendVideo = send("video", { media: visualMedia })
export const SendAudio = send("audio", { media: mediaFor("voice") })
export const SendDocument = send("document", { media: mediaFor("caption", "filename") })
export const SendSticker = send("sticker", { media: mediaFor() })
export const SendInteractive = send("interactive", { interactive: JsonObject })
export const SendLocation = send("location", { location: LocationObject })
export const SendContacts = send("contacts", { contacts: ContactsArray })
export const SendReaction = send("reaction", { reaction: ReactionObject })
export const SendTyping = send("typing", {})
export const SendCatalog = send("catalog", { interactive: JsonObject })

/** POST /messages body, discriminated on `type` so errors point at the missing field. */
export const SendMessage = requestBody(
  Schema.Union(
    SendText,
    SendTemplate,
    SendImage,
    SendVideo,
    SendAudio,
    SendDocument,
    SendSticker,
    SendInteractive,
    SendLocation,
    SendContacts,
    SendReaction,
    SendTyping,
    SendCatalog
  ),
  "SendMessage"
)
export type SendMessage = typeof SendMessage.Type
export type SendMessageOf<T extends MessageType> = Extract<SendMessage, { readonly type: T }>

export const SendResult = Schema.Struct({ channel_id: Id, message_id: Schema.String, type: Schema.String }).annotations(
  { identifier: "SendResult" }
)
export type SendResult = typeof SendResult.Type

export const MarkRead = requestBody(
  Schema.Struct({
    channel_id: Id,
    message_id: Schema.String.pipe(
      Schema.minLength(1, { message: () => `must be 1 to ${MARK_READ_MESSAGE_ID_MAX} characters` }),
      maxChars(MARK_READ_MESSAGE_ID_MAX, () => `must be 1 to ${MARK_READ_MESSAGE_ID_MAX} characters`),
      Schema.filter((s) => /\S/u.test(s) || "must not be only whitespace")
    )
  }),
  "MarkRead"
)
export type MarkRead = typeof MarkRead.Type

export const MarkReadResult = Schema.Struct({ message_id: Schema.String, status: Schema.String }).annotations({
  identifier: "MarkReadResult"
})
export type MarkReadResult = typeof MarkReadResult.Type

/** Where a stored message came from: the contact, an API send, the owner's own app (echo), or a broadcast. */
export const MessageRecordSource = Schema.Literal("contact", "api", "app_echo", "broadcast")

/**
 * Stored message record returned by GET /messages (DESIGN §5): `meta_message_id` is the
 * upstream id, `payload` the type's object as sent or received, `error` the upstream
 * error envelope of a failed send; never a token.
 */
export const Message = Schema.Struct({
  id: Id,
  platform_channel_id: Id,
  conversation_id: Schema.NullOr(Id),
  contact_id: Schema.NullOr(Id),
  direction: MessageDirection,
  source: MessageRecordSource,
  type: Schema.String,
  text: Schema.NullOr(Schema.String),
  payload: Schema.NullOr(Schema.Unknown),
  media_id: Schema.NullOr(Schema.String),
  status: Schema.NullOr(Schema.String),
  meta_message_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(JsonObject),
  created_at: Timestamp,
  status_updated_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "Message" })
export type Message = typeof Message.Type

/**
 * Query of GET /messages (DESIGN §5 "Filters"). Free-text filters (direction, type,
 * status, peer_id) with a value no message has give an empty page; typed ones
 * (ids, dates) that do not parse are 422. `since` is inclusive, `until` exclusive.
 */
export const MessageListQuery = Schema.Struct({
  ...ListQueryFields,
  channel_id: optional(IntegerParam("Only messages of this channel.")),
  conversation_id: optional(IntegerParam("Only messages of this conversation.")),
  contact_id: optional(IntegerParam("Only messages of this contact.")),
  peer_id: optional(Schema.String.annotations({ description: "Only messages with this peer (the conversation's peer_id)." })),
  direction: optional(Schema.String.annotations({ description: "Only messages in this direction: inbound or outbound." })),
  type: optional(Schema.String.annotations({ description: "Only messages of this type (text, image, template, ...)." })),
  status: optional(Schema.String.annotations({ description: "Only outbound messages in this status: sent, delivered, read or failed." })),
  since: optional(Timestamp.annotations({ description: "Only messages created at or after this date-time." })),
  until: optional(Timestamp.annotations({ description: "Only messages created before this date-time." }))
})
export type MessageListQuery = typeof MessageListQuery.Type

export const MessageList = Page(Message).annotations({ identifier: "MessageList" })
export type MessageList = typeof MessageList.Type
