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
  BlockUsersResult,
  ChannelHealth,
  ChannelProfile,
  ChannelProfileUpdate,
  ChannelWebhook,
  ChannelWebhookUpdate,
  DashboardChannel,
  DeliveryList,
  DeliveryStatus,
  EventDelivery,
  Envelope,
  LastEventIdNotFound,
  Me,
  Page,
  Plan,
  PlanLimits,
  RawForwardDelivery,
  Role,
  SandboxInbound,
  SandboxInboundAccepted,
  Scope,
  CardComponent,
  HeaderMediaResult,
  Template,
  TemplateButton,
  TemplateCategory,
  TemplateComponent,
  TemplateCreate,
  TemplatePatch,
  TemplateSyncResult,
  Signup,
  TeamAdd,
  TeamMember,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionPatch,
  WebhookSubscriptionWithSecret
} from "@platform/shared"

// Broadcasts (SPEC §2.7, §4.7) and the template a broadcast sends.
export type {
  Broadcast,
  BroadcastCreate,
  BroadcastRecipient,
  BroadcastRecipientsLoadResult,
  BroadcastRecipientsPage,
  BroadcastStatus,
  RecipientStatus,
  RuntimeComponent
} from "@platform/shared"
