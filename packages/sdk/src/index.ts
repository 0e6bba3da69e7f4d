export { Platform, Platform as default, DEFAULT_BASE_URL, type ClientOptions } from "./client.js"
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  MediaFileError,
  NoNextPageError,
  NotFoundError,
  NotImplementedError,
  PermissionDeniedError,
  PlatformError,
  RateLimitError,
  TemplateQuotaError,
  UnexpectedResponseError,
  UpstreamError,
  ValidationError
} from "./core/errors.js"
export { CursorPage, PagePromise, type PageBody } from "./core/pagination.js"
export { VERSION, type RateLimitInfo, type RequestOptions, type RetryNotice } from "./core/request.js"
export { EventStream, parseSSE, type EventStreamOptions, type ServerSentEvent } from "./core/sse.js"
export { Messages } from "./resources/messages.js"
export { Media, type MediaUploadFileParams, type Uploadable } from "./resources/media.js"
export { Broadcasts, BroadcastRecipientPage } from "./resources/broadcasts.js"
export { Channels } from "./resources/channels.js"
export { Contacts } from "./resources/contacts.js"
export { Templates, type HeaderMediaUploadParams } from "./resources/templates.js"
export { Conversations } from "./resources/conversations.js"
export { Events, EVENT_TYPES, isKnownEvent, type EventStreamParams } from "./resources/events.js"
export { Webhooks, Subscriptions, Deliveries, DeliveryPage, type DeliveryRetrieveParams } from "./resources/webhooks/index.js"
export type * from "./types.js"
