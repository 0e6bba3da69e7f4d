/**
 * Request and response types, derived from the `@platform/shared` schemas (type-only
 * imports: the schemas never reach the SDK bundle, and the SDK cannot drift from them).
 */
import type {
  BlockUsers as BlockUsersSchema,
  BlockUsersResult as BlockUsersResultSchema,
  Broadcast as BroadcastSchema,
  BroadcastCreate as BroadcastCreateSchema,
  BroadcastListQuery as BroadcastListQuerySchema,
  BroadcastRecipient as BroadcastRecipientSchema,
  BroadcastRecipientsLoad as BroadcastRecipientsLoadSchema,
  BroadcastRecipientsLoadResult as BroadcastRecipientsLoadResultSchema,
  BroadcastRecipientsPage as BroadcastRecipientsPageSchema,
  BroadcastSchedule as BroadcastScheduleSchema,
  RecipientStatus as RecipientStatusSchema,
  Channel as ChannelSchema,
  ChannelDisplayName as ChannelDisplayNameSchema,
  ChannelHealth as ChannelHealthSchema,
  ChannelProfile as ChannelProfileSchema,
  ChannelProfileUpdate as ChannelProfileUpdateSchema,
  TwoFactor as TwoFactorSchema,
  TwoFactorResult as TwoFactorResultSchema,
  ChannelType as ChannelTypeSchema,
  Contact as ContactSchema,
  ContactDeleted as ContactDeletedSchema,
  ContactListQuery as ContactListQuerySchema,
  ContactPatch as ContactPatchSchema,
  Conversation as ConversationSchema,
  ConversationListQuery as ConversationListQuerySchema,
  ConversationPatch as ConversationPatchSchema,
  InboundSwitch as InboundSwitchSchema,
  LastEventIdNotFound as LastEventIdNotFoundSchema,
  DeliveryListQuery as DeliveryListQuerySchema,
  EventDelivery as EventDeliverySchema,
  EventType as EventTypeSchema,
  AnyEnvelope as AnyEnvelopeSchema,
  Envelope as EnvelopeSchema,
  MarkRead as MarkReadSchema,
  MarkReadResult as MarkReadResultSchema,
  MediaDeleteResult as MediaDeleteResultSchema,
  MediaFromUrl as MediaFromUrlSchema,
  MediaUploadResult as MediaUploadResultSchema,
  MediaUrlResult as MediaUrlResultSchema,
  Message as MessageSchema,
  MessageListQuery as MessageListQuerySchema,
  RawForwardDelivery as RawForwardDeliverySchema,
  SendMessage as SendMessageSchema,
  SendResult as SendResultSchema,
  HeaderMediaResult as HeaderMediaResultSchema,
  Template as TemplateSchema,
  TemplateCreate as TemplateCreateSchema,
  TemplateListQuery as TemplateListQuerySchema,
  TemplatePatch as TemplatePatchSchema,
  TemplateSyncResult as TemplateSyncResultSchema,
  WebhookSubscription as WebhookSubscriptionSchema,
  WebhookSubscriptionCreate as WebhookSubscriptionCreateSchema,
  WebhookSubscriptionPatch as WebhookSubscriptionPatchSchema,
  WebhookSubscriptionWithSecret as WebhookSubscriptionWithSecretSchema
} from "@platform/shared"

/** Body of `POST /platform/v1/messages`, as sent on the wire (union discriminated on `type`). */
export type SendMessageParams = typeof SendMessageSchema.Encoded
/** The message types `messages.send` accepts. */
export type MessageType = SendMessageParams["type"]
/** The send body of one message type. */
export type SendMessageParamsOf<T extends MessageType> = Extract<SendMessageParams, { readonly type: T }>
/** A send body of one type without its `type` field (for the typed helpers). */
export type SendParams<T extends MessageType> = Omit<SendMessageParamsOf<T>, "type">
/** Result of a send: `{channel_id, message_id, type}`. */
export type SendResult = typeof SendResultSchema.Type
/** Body of `POST /platform/v1/messages/mark-read`. */
export type MarkReadParams = typeof MarkReadSchema.Encoded
/** Result of mark-read: `{message_id, status}`. */
export type MarkReadResult = typeof MarkReadResultSchema.Type

/** Body of a media upload from a public URL. */
export type MediaFromUrlParams = typeof MediaFromUrlSchema.Encoded
/** Result of a media upload: `{channel_id, media_id}`. */
export type MediaUploadResult = typeof MediaUploadResultSchema.Type
/** Result of `GET /media/{id}/url`: a short-lived URL with its MIME type and size. */
export type MediaUrlResult = typeof MediaUrlResultSchema.Type
/** Result of `DELETE /media/{id}`: `{deleted: true}`. */
export type MediaDeleteResult = typeof MediaDeleteResultSchema.Type

/** A message template (SPEC §2.1). */
export type Template = typeof TemplateSchema.Type
/** Body of `POST /platform/v1/templates`: legacy `body_text` (+ `variables`) or `components` (+ `parameter_format`). */
export type TemplateCreateParams = typeof TemplateCreateSchema.Encoded
/** Body of `PATCH /platform/v1/templates/{id}`: any subset of the editable fields. */
export type TemplateUpdateParams = typeof TemplatePatchSchema.Encoded
/** Filters of `GET /platform/v1/templates` (all optional, AND-combined). */
export type TemplateListParams = Partial<typeof TemplateListQuerySchema.Type>
/** Result of `POST /platform/v1/templates/sync`. */
export type TemplateSyncResult = typeof TemplateSyncResultSchema.Type
/** Result of `POST /platform/v1/templates/header-media`: `{handle}`. */
export type HeaderMediaResult = typeof HeaderMediaResultSchema.Type

/** An item of `GET /platform/v1/channels`. */
export type Channel = typeof ChannelSchema.Type
/** A channel kind: `chat` (WhatsApp) or `social` (Instagram, Messenger). */
export type ChannelType = typeof ChannelTypeSchema.Type
/** Filters of `GET /platform/v1/channels`. */
export interface ChannelListParams {
  /** Only channels of this kind. */
  readonly type?: ChannelType
}
/** Body of `PATCH /platform/v1/channels/{id}/inbound`: `{enabled}`. */
export type InboundSwitchParams = typeof InboundSwitchSchema.Encoded
/** Result of `GET /channels/{id}/health`: whether the channel can send, overall and per entity. */
export type ChannelHealth = typeof ChannelHealthSchema.Type
/** A chat channel's business profile as the upstream holds it. */
export type ChannelProfile = typeof ChannelProfileSchema.Type
/** Body of `POST /channels/{id}/profile`: only the fields given are changed. */
export type ChannelProfileUpdateParams = typeof ChannelProfileUpdateSchema.Encoded
/** Result of `GET /channels/{id}/display-name`: the name and its review state. */
export type ChannelDisplayName = typeof ChannelDisplayNameSchema.Type
/** Body of `POST` and `DELETE /channels/{id}/block-users`: `{users}`, 1 to 1000. */
export type BlockUsersParams = typeof BlockUsersSchema.Encoded
/** Result of blocking or unblocking: the users that succeeded and those the upstream refused, with why. */
export type BlockUsersResult = typeof BlockUsersResultSchema.Type
/** Body of `POST /channels/{id}/two-factor`: `{pin}`, exactly 6 digits. */
export type TwoFactorParams = typeof TwoFactorSchema.Encoded
/** Result of setting the two-step verification PIN (the PIN is never returned). */
export type TwoFactorResult = typeof TwoFactorResultSchema.Type

/** A conversation with a peer on a channel. */
export type Conversation = typeof ConversationSchema.Type
/** Body of `PATCH /platform/v1/conversations/{id}`: `{status: "active" | "ended"}`. */
export type ConversationUpdateParams = typeof ConversationPatchSchema.Encoded

/** Filters of `GET /platform/v1/conversations` (all optional) plus the list cursors. */
export type ConversationListParams = Partial<typeof ConversationListQuerySchema.Type>

/** A stored message (sent or received) of `GET /platform/v1/messages`. */
export type Message = typeof MessageSchema.Type
/** Filters of `GET /platform/v1/messages` (all optional) plus the list cursors; `since` inclusive, `until` exclusive. */
export type MessageListParams = Partial<typeof MessageListQuerySchema.Type>

/** A person on a channel: who wrote to it or was written to. */
export type Contact = typeof ContactSchema.Type
/** Filters of `GET /platform/v1/contacts` (all optional) plus the list cursors. */
export type ContactListParams = Partial<typeof ContactListQuerySchema.Type>
/** Body of `PATCH /platform/v1/contacts/{id}`: metadata merged key by key (null removes a key), display_name replaced. */
export type ContactUpdateParams = typeof ContactPatchSchema.Encoded
/** Result of `DELETE /platform/v1/contacts/{id}` (202): `{id, deleted: true}`; the rows are wiped in the background. */
export type ContactDeleteResult = typeof ContactDeletedSchema.Type

/** A webhook subscription as read, listed, updated and resumed (its secret is never returned there). */
export type WebhookSubscription = typeof WebhookSubscriptionSchema.Type
/** A webhook subscription as create and rotate-secret return it: with its signing `secret`, shown this once. */
export type WebhookSubscriptionWithSecret = typeof WebhookSubscriptionWithSecretSchema.Type
/** Body of `POST /webhooks/subscriptions`. */
export type SubscriptionCreateParams = typeof WebhookSubscriptionCreateSchema.Encoded
/** Body of `PATCH /webhooks/subscriptions/{id}`. */
export type SubscriptionUpdateParams = typeof WebhookSubscriptionPatchSchema.Encoded

/** A normalized event delivery; `envelope` only with `include: "full_envelope"`. */
export type EventDelivery = typeof EventDeliverySchema.Type
/** A raw-forward delivery row (`mode: "meta"`). */
export type RawForwardDelivery = typeof RawForwardDeliverySchema.Type
type DeliveryQuery = typeof DeliveryListQuerySchema.Type
/** Filters of `GET /webhooks/deliveries` (all optional) plus the list cursors. */
export type DeliveryListParams = Partial<Omit<DeliveryQuery, "mode">> & { readonly mode?: DeliveryQuery["mode"] }

/** One of the 12 normalized event types. */
export type EventType = typeof EventTypeSchema.Type
/** A normalized event envelope of a known type, discriminated on `event`. */
export type Envelope = typeof EnvelopeSchema.Type
/** A known envelope, or one of an event type newer than this SDK. */
export type AnyEnvelope = typeof AnyEnvelopeSchema.Type

/** What the event stream says when the `Last-Event-ID` it was asked to resume after is unknown or older than 24 hours. */
export type LastEventIdNotFound = typeof LastEventIdNotFoundSchema.Type

/** Common list parameters: `limit` (1..200, default 50) and the `after`/`before` cursors. */
export interface ListParams {
  readonly limit?: number
  readonly after?: string
  readonly before?: string
}

/** A broadcast (SPEC §2.7): status draft, scheduled, sending, completed or failed. */
export type Broadcast = typeof BroadcastSchema.Type
/** Body of `POST /platform/v1/broadcasts`: `{name, channel_id, template_name, language_code, components?}`. */
export type BroadcastCreateParams = typeof BroadcastCreateSchema.Encoded
/** Filters of `GET /platform/v1/broadcasts` plus the list cursors. */
export type BroadcastListParams = ListParams & Pick<Partial<typeof BroadcastListQuerySchema.Type>, "channel_id" | "status">
/** Body of `POST /platform/v1/broadcasts/{id}/recipients`: `{recipients: [{to, components?}]}`, 1 to 1000. */
export type BroadcastRecipientsParams = typeof BroadcastRecipientsLoadSchema.Encoded
/** Result of a recipients load: `{added, skipped, recipient_count}`. */
export type BroadcastRecipientsResult = typeof BroadcastRecipientsLoadResultSchema.Type
/** Body of `POST /platform/v1/broadcasts/{id}/schedule`: `{scheduled_at}`. */
export type BroadcastScheduleParams = typeof BroadcastScheduleSchema.Encoded
/** A recipient's state: pending, sent, delivered, read, responded or failed. */
export type BroadcastRecipientStatus = typeof RecipientStatusSchema.Type
/** A broadcast recipient with its state. */
export type BroadcastRecipient = typeof BroadcastRecipientSchema.Type
/** Recipients per state over a whole broadcast. */
export type BroadcastRecipientCounts = typeof BroadcastRecipientsPageSchema.Type["counts"]
/** Filters of `GET /platform/v1/broadcasts/{id}/recipients` plus the list cursors. */
export type BroadcastRecipientListParams = ListParams & { readonly status?: BroadcastRecipientStatus }
