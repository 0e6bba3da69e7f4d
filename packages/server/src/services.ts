import { Layer } from "effect"
import { RateLimiter } from "./auth/rate-limiter.js"
import { Secrets } from "./crypto/secrets.js"
import { DeliveryWakeup } from "./delivery/wakeup.js"
import { UpstreamLive } from "./upstream/live.js"
import { Accounts } from "./accounts/accounts.js"
import { ApiKeys } from "./auth/api-keys.js"
import { BroadcastSender } from "./broadcasts/broadcast-sender.js"
import { Broadcasts } from "./broadcasts/broadcasts.js"
import { ChannelCredentialsCache } from "./channels/channel-credentials.js"
import { ChannelOnboarding } from "./channels/channel-onboarding.js"
import { ChannelOperations } from "./channels/channel-operations.js"
import { Channels } from "./channels/channels.js"
import { Contacts } from "./contacts/contacts.js"
import { Events } from "./outbox/events.js"
import { Idempotency } from "./messages/idempotency.js"
import { Media } from "./media/media.js"
import { MessageHistory } from "./messages/message-history.js"
import { Messages } from "./messages/messages.js"
import { SandboxInbound } from "./channels/sandbox-inbound.js"
import { Sessions } from "./auth/sessions.js"
import { Templates } from "./templates/templates.js"
import { Usage } from "./accounts/usage.js"
import { Conversations } from "./conversations/conversations.js"
import { Deliveries } from "./webhooks/deliveries.js"
import { EventStream } from "./events/event-stream.js"
import { Subscriptions } from "./webhooks/subscriptions.js"

/**
 * Accounts, sessions, keys, usage, channels, the outbox, messaging, the stored history and contacts, media, over
 * SqlClient and AppConfig. One instance each per process (the key cache, the channel
 * credentials cache and the in-process rate limiter are state). ChannelOnboarding runs
 * connect over the Upstream service in both modes (the simulator over HTTP in sandbox).
 * Broadcasts send through Messages, so Messages is provided to them.
 */
export const DomainLive = Layer.mergeAll(
  Broadcasts.Default,
  BroadcastSender.Default,
  ApiKeys.Default,
  Sessions.Default,
  Accounts.Default,
  Channels.Default,
  ChannelOperations.Default,
  MessageHistory.Default,
  Contacts.Default,
  Media.Default,
  Templates.Default,
  SandboxInbound.Default
).pipe(
  Layer.provideMerge(Messages.Default),
  Layer.provideMerge(ChannelOnboarding.Default),
  Layer.provideMerge(Layer.mergeAll(ChannelCredentialsCache.Default, Idempotency.Default, UpstreamLive)),
  Layer.provideMerge(Layer.mergeAll(Usage.Default, Events.Default, Secrets.Default, RateLimiter.Live, DeliveryWakeup.Default))
)

/** Subscriptions, deliveries, the conversation status change and the event stream; Secrets and Events come from DomainLive. */
export const DeliveryDomainLive = Layer.mergeAll(
  Subscriptions.Default,
  Deliveries.Default,
  Conversations.Default,
  EventStream.Default
).pipe(Layer.provideMerge(DeliveryWakeup.Default))
