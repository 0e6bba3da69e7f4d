/**
 * The wire types the console reads and writes, from @platform/shared's schemas (type
 * imports only: nothing of Effect reaches the bundle).
 */
export type {
  ApiKey,
  ApiKeyCreate,
  ApiKeyCreated,
  ApiKeyPatch,
  Billing,
  ChannelHealth,
  DashboardChannel,
  DeliveryList,
  DeliveryStatus,
  EventDelivery,
  Me,
  Page,
  RawForwardDelivery,
  Scope,
  Signup,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionWithSecret
} from "@platform/shared"
