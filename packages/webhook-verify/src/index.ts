export type { RawBody, VerifyFailure } from "./errors.js"
export type { HeadersLike } from "./headers.js"
export {
  EVENT_TYPES,
  isEventType,
  type ChannelEventData,
  type ChannelEventType,
  type ConversationEventData,
  type ConversationEventType,
  type Envelope,
  type EnvelopeBatch,
  type EnvelopeFields,
  type EventDataMap,
  type EventType,
  type MessageEventData,
  type MessageEventType,
  type TemplateStatusChangedData,
  type UpstreamErrorEnvelope,
  type UnknownWebhookEvent,
  type WebhookEvent
} from "./events.js"
export {
  SIGNATURE_HEADER,
  verify,
  verifyWithFallback,
  type SignatureFailureReason,
  type SignatureResult,
  type SignatureVerified
} from "./verify.js"
export {
  verifyStandard,
  type StandardFailureReason,
  type StandardResult,
  type StandardVerified,
  type VerifyStandardOptions
} from "./standard.js"
export {
  parse,
  verifyAndParse,
  type ParsedDelivery,
  type ParseFailureReason,
  type ParseResult,
  type VerifyAndParseResult
} from "./parse.js"
export {
  verifyRawForward,
  type RawForwardFailureReason,
  type RawForwardResult,
  type RawForwardVerified
} from "./raw-forward.js"
export type { DeliveryInfo, WebhookHandlerOptions } from "./adapters/handle.js"
export { createNodeHandler, type NodeHandlerOptions, type NodeRequestLike, type NodeResponseLike } from "./adapters/node.js"
export {
  createExpressMiddleware,
  type ExpressMiddlewareOptions,
  type ExpressNext,
  type ExpressRequestLike
} from "./adapters/express.js"
export { createFetchHandler, type FetchHandlerOptions } from "./adapters/fetch.js"
