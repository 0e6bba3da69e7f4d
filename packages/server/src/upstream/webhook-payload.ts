import { Option, Schema } from "effect"

/*
 * Meta's inbound webhook payloads, decoded tolerantly: unknown fields are ignored,
 * unknown message types and unknown change fields decode through catch-all
 * members instead of failing, because Meta adds both without notice.
 */

const Str = Schema.String
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optional(s)
/** Meta writes some ids and timestamps as numbers in one payload and strings in another. */
const StrOrNum = Schema.Union(Schema.String, Schema.Number)

export const WaMetadata = Schema.Struct({
  display_phone_number: opt(Str),
  phone_number_id: Str
})

export const WaContact = Schema.Struct({
  wa_id: opt(Str),
  user_id: opt(Str),
  profile: opt(Schema.Struct({ name: opt(Str), username: opt(Str) }))
})

export const WaMedia = Schema.Struct({
  id: opt(Str),
  mime_type: opt(Str),
  sha256: opt(Str),
  caption: opt(Str),
  filename: opt(Str),
  voice: opt(Schema.Boolean),
  animated: opt(Schema.Boolean),
  url: opt(Str)
})

export const WaError = Schema.Struct({
  code: Schema.Number,
  title: opt(Str),
  message: opt(Str),
  error_data: opt(Schema.Struct({ details: opt(Str) })),
  href: opt(Str)
})

export const WaMessageContext = Schema.Struct({
  from: opt(Str),
  id: opt(Str),
  forwarded: opt(Schema.Boolean),
  frequently_forwarded: opt(Schema.Boolean),
  referred_product: opt(Schema.Unknown)
})

/**
 * One inbound WhatsApp message. `type` is any string (new types decode); the
 * object for the type sits under the key of the same name.
 */
export const WaMessage = Schema.Struct({
  from: Str,
  id: Str,
  timestamp: StrOrNum,
  type: Str,
  context: opt(WaMessageContext),
  text: opt(Schema.Struct({ body: Str })),
  image: opt(WaMedia),
  video: opt(WaMedia),
  audio: opt(WaMedia),
  document: opt(WaMedia),
  sticker: opt(WaMedia),
  location: opt(Schema.Struct({
    latitude: opt(Schema.Number),
    longitude: opt(Schema.Number),
    name: opt(Str),
    address: opt(Str),
    url: opt(Str)
  })),
  contacts: opt(Schema.Array(Schema.Unknown)),
  interactive: opt(Schema.Struct({
    type: Str,
    button_reply: opt(Schema.Struct({ id: Str, title: opt(Str) })),
    list_reply: opt(Schema.Struct({ id: Str, title: opt(Str), description: opt(Str) })),
    nfm_reply: opt(Schema.Unknown)
  })),
  button: opt(Schema.Struct({ payload: opt(Str), text: opt(Str) })),
  reaction: opt(Schema.Struct({ message_id: Str, emoji: opt(Str) })),
  order: opt(Schema.Unknown),
  referral: opt(Schema.Unknown),
  system: opt(Schema.Unknown),
  errors: opt(Schema.Array(WaError))
})
export type WaMessage = typeof WaMessage.Type

export const WaStatus = Schema.Struct({
  id: Str,
  status: Str,
  timestamp: StrOrNum,
  recipient_id: opt(Str),
  conversation: opt(Schema.Unknown),
  pricing: opt(Schema.Unknown),
  biz_opaque_callback_data: opt(Str),
  errors: opt(Schema.Array(WaError))
})
export type WaStatus = typeof WaStatus.Type

export const WaMessagesValue = Schema.Struct({
  messaging_product: opt(Str),
  metadata: WaMetadata,
  contacts: opt(Schema.Array(WaContact)),
  messages: opt(Schema.Array(WaMessage)),
  statuses: opt(Schema.Array(WaStatus)),
  errors: opt(Schema.Array(WaError))
})

/** The owner's own messages written in the WhatsApp Business app (coexistence). */
export const WaSmbMessageEchoesValue = Schema.Struct({
  messaging_product: opt(Str),
  metadata: WaMetadata,
  message_echoes: opt(Schema.Array(Schema.extend(
    Schema.Struct({ to: opt(Str) }),
    Schema.Struct({ ...WaMessage.fields, from: opt(Str) })
  )))
})

export const WaTemplateStatusValue = Schema.Struct({
  event: Str,
  message_template_id: StrOrNum,
  message_template_name: Str,
  message_template_language: Str,
  reason: opt(Schema.NullOr(Str)),
  other_info: opt(Schema.Unknown)
})

export const WaQualityUpdateValue = Schema.Struct({
  display_phone_number: opt(Str),
  event: opt(Str),
  current_limit: opt(Str),
  old_limit: opt(Str),
  max_daily_conversation_per_phone: opt(Schema.Number),
  quality_rating: opt(Str),
  current_quality_rating: opt(Str)
})

export const WaAccountUpdateValue = Schema.Struct({
  event: opt(Str),
  phone_number: opt(Str),
  ban_info: opt(Schema.Unknown),
  violation_info: opt(Schema.Unknown),
  restriction_info: opt(Schema.Unknown)
})

const change = <F extends string, V extends Schema.Schema.Any>(field: F, value: V) =>
  Schema.Struct({ field: Schema.Literal(field), value })

export const WaChange = Schema.Union(
  change("messages", WaMessagesValue),
  change("smb_message_echoes", WaSmbMessageEchoesValue),
  change("message_template_status_update", WaTemplateStatusValue),
  change("phone_number_quality_update", WaQualityUpdateValue),
  change("account_update", WaAccountUpdateValue),
  Schema.Struct({ field: Str, value: Schema.Unknown })
)
export type WaChange = typeof WaChange.Type

export const WhatsAppWebhook = Schema.Struct({
  object: Schema.Literal("whatsapp_business_account"),
  entry: Schema.Array(Schema.Struct({
    /** The WABA id: routes account-level fields that carry no metadata. */
    id: Str,
    time: opt(Schema.Number),
    changes: Schema.Array(WaChange)
  }))
})
export type WhatsAppWebhook = typeof WhatsAppWebhook.Type

export const MessagingAttachment = Schema.Struct({
  type: Str,
  payload: opt(Schema.Struct({ url: opt(Str), title: opt(Str), sticker_id: opt(Schema.Number) }))
})

export const MessagingMessage = Schema.Struct({
  mid: Str,
  text: opt(Str),
  attachments: opt(Schema.Array(MessagingAttachment)),
  is_echo: opt(Schema.Boolean),
  is_deleted: opt(Schema.Boolean),
  is_unsupported: opt(Schema.Boolean),
  reply_to: opt(Schema.Struct({ mid: opt(Str), story: opt(Schema.Unknown) })),
  quick_reply: opt(Schema.Struct({ payload: Str }))
})

export const MessagingEvent = Schema.Struct({
  sender: Schema.Struct({ id: Str }),
  recipient: Schema.Struct({ id: Str }),
  timestamp: opt(Schema.Number),
  message: opt(MessagingMessage),
  read: opt(Schema.Struct({ mid: opt(Str), watermark: opt(Schema.Number) })),
  delivery: opt(Schema.Struct({ mids: opt(Schema.Array(Str)), watermark: opt(Schema.Number) })),
  reaction: opt(Schema.Struct({ mid: Str, action: Str, reaction: opt(Str), emoji: opt(Str) })),
  postback: opt(Schema.Struct({ mid: opt(Str), title: opt(Str), payload: opt(Str) }))
})
export type MessagingEvent = typeof MessagingEvent.Type

export const MessagingWebhook = Schema.Struct({
  object: Schema.Literal("instagram", "page"),
  entry: Schema.Array(Schema.Struct({
    /** The Instagram account (or Page) id: routes the traffic to a social channel. */
    id: Str,
    time: opt(Schema.Number),
    messaging: opt(Schema.Array(MessagingEvent)),
    changes: opt(Schema.Array(Schema.Struct({ field: Str, value: Schema.Unknown })))
  }))
})
export type MessagingWebhook = typeof MessagingWebhook.Type

/** Any Meta webhook body this platform receives on `/webhook/incoming`. */
export const MetaWebhookPayload = Schema.Union(WhatsAppWebhook, MessagingWebhook)
export type MetaWebhookPayload = typeof MetaWebhookPayload.Type

export const decodeMetaWebhook = Schema.decodeUnknownEither(MetaWebhookPayload)
export const decodeMetaWebhookJson = Schema.decodeUnknownEither(Schema.parseJson(MetaWebhookPayload))

export const QualityRating = Schema.Literal("GREEN", "YELLOW", "RED", "UNKNOWN")
export type QualityRating = typeof QualityRating.Type

const normalizeRating = (raw: unknown): Option.Option<QualityRating> => {
  if (typeof raw !== "string") return Option.none()
  const upper = raw.toUpperCase()
  switch (upper) {
    case "GREEN":
    case "HIGH":
      return Option.some("GREEN")
    case "YELLOW":
    case "MEDIUM":
      return Option.some("YELLOW")
    case "RED":
    case "LOW":
      return Option.some("RED")
    case "UNKNOWN":
    case "NA":
      return Option.some("UNKNOWN")
    default:
      return Option.none()
  }
}

/**
 * The quality rating to persist in `platform_channels.quality_rating`, from a
 * `phone_number_quality_update` value or a `GET /{phone_number_id}` response.
 * An explicit rating field wins; otherwise FLAGGED means the rating fell to RED
 * and UNFLAGGED that it recovered to GREEN; tier changes alone say nothing.
 */
export const extractQualityRating = (value: unknown): Option.Option<QualityRating> => {
  if (typeof value !== "object" || value === null) return Option.none()
  const v = value as Record<string, unknown>
  const explicit = normalizeRating(v["quality_rating"] ?? v["current_quality_rating"])
  if (Option.isSome(explicit)) return explicit
  const event = typeof v["event"] === "string" ? v["event"].toUpperCase() : ""
  if (event === "FLAGGED") return Option.some("RED")
  if (event === "UNFLAGGED") return Option.some("GREEN")
  return Option.none()
}
